import type { ErrorClass } from './types';

/** How a failed request is named: its error class, and messages short enough to store. */

const MESSAGE_LIMIT = 500;

export function truncate(text: string, limit = MESSAGE_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

/** Retry-After as seconds: delta-seconds, or an HTTP date relative to now. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // autoSelectFamily tries each address: an AggregateError whose parts carry the code.
  const parts = (err as { errors?: unknown }).errors;
  if (Array.isArray(parts) && parts.length > 0) return errorCode(parts[0]);
  return undefined;
}

export function errorMessage(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { message, errors } = err as { message?: unknown; errors?: unknown };
  let text = typeof message === 'string' && message !== '' ? message : String(err);
  // autoSelectFamily failures are AggregateErrors with an empty message
  if (text === String(err) && Array.isArray(errors)) text = errors.map((e) => errorMessage(e)).join('; ');
  const code = errorCode(err);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

/** Errors raised by the client refusing what it was asked to send or connect to (Node's, undici's, ours). */
const CLIENT_CONFIG_CODES = new Set([
  'TEAPOT_CLIENT_CONFIG',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_IP_ADDRESS',
]);

/** The response broke HTTP/1.1 (head too large, bad status or header line, bad framing): either transport's. */
export function isProtocolError(err: unknown): boolean {
  const code = errorCode(err);
  if (code === undefined) return false;
  // undici's llhttp errors are HPE_*; the http1 transport's are TEAPOT_HTTP_PARSE
  return code === 'TEAPOT_HTTP_PARSE' || code === 'UND_ERR_HEADERS_OVERFLOW' || code.startsWith('HPE_');
}

/** Why the transport failed a request that we did not abort ourselves. */
export function classifyTransportError(err: unknown, responseStarted: boolean): ErrorClass {
  const code = errorCode(err);
  if (code !== undefined && CLIENT_CONFIG_CODES.has(code)) return 'client_config';
  // the server answered, but not in HTTP: its fault, and not a failure to connect
  if (isProtocolError(err)) return 'malformed_stream';
  if (code === 'ECONNREFUSED') return 'connect_refused';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT')
    return 'timeout';
  if (responseStarted) return 'truncated_stream';
  // DNS, unreachable, TLS, connect timeout (either transport's), or closed/reset before any response byte.
  return 'connect_error';
}

export function describeStreamError(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return JSON.stringify(value) ?? 'error';
}
