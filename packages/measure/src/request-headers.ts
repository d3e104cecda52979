/**
 * Request headers a run may send: the checks both transports need before anything goes out, in one
 * place so that endpoint registration can refuse the same headers the run would.
 */

/** Headers the client writes itself: framing, the connection it manages, the body it sends. */
const CLIENT_OWNED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'host',
  'content-type',
  'expect',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab: undici refuses other control characters, and other bytes are ambiguous. */
const HEADER_VALUE_FORBIDDEN = /[^\t\x20-\x7e]/;

/** Why a header cannot be sent, naming it; null when every header can be sent as given. */
export function invalidRequestHeader(headers: Record<string, string>): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name)} is not a valid HTTP token`;
    if (typeof value !== 'string') return `header ${name}: the value must be a string`;
    const forbidden = HEADER_VALUE_FORBIDDEN.exec(value);
    if (forbidden !== null) {
      const code = forbidden[0].charCodeAt(0);
      const what = code < 0x20 || code === 0x7f ? 'a control character' : 'a non-ASCII character';
      return `header ${name}: the value contains ${what} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
    }
    if (CLIENT_OWNED_HEADERS.has(name.toLowerCase()))
      return `header ${name}: set by the client itself (it frames the body and manages the connection)`;
  }
  return null;
}
