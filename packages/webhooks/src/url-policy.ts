import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { addressScope, type AddressScope } from './address';

/** The ranges a policy may open besides the public internet. */
export type OptionalScope = 'private' | 'loopback';

export interface UrlPolicy {
  readonly allow: ReadonlySet<OptionalScope>;
  /** The setting that changes `allow`, named in refusals so the reader knows what to change. */
  readonly setting: string;
}

export const ENDPOINT_URL_SETTING = 'TEAPOT_ENDPOINT_URL_ALLOW';
export const WEBHOOK_URL_SETTING = 'TEAPOT_WEBHOOK_URL_ALLOW';

/**
 * Endpoints default to public + private: a self-hosted GPU box usually sits on a private network.
 * Loopback is this host's own services (the API, Redis, Postgres, metrics), so it is opt-in.
 */
export const ENDPOINT_URL_DEFAULT = 'public,private';
/** Webhook receivers are someone else's servers on the internet: public only unless opened. */
export const WEBHOOK_URL_DEFAULT = 'public';

// Names that resolve to metadata services inside clouds; refused before any lookup.
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

export type UrlRefusal = 'scheme' | 'credentials' | 'host' | AddressScope;

export class UrlPolicyError extends Error {
  constructor(
    readonly reason: UrlRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'UrlPolicyError';
  }
}

/**
 * Reads a policy setting: a comma list of `public` (always implied), `private`, `loopback`.
 * `undefined` or an empty value gives `fallback`. Throws naming the unknown word.
 */
export function parseUrlPolicy(value: string | undefined, setting: string, fallback: string): UrlPolicy {
  const text = value?.trim() ? value : fallback;
  const allow = new Set<OptionalScope>();
  for (const word of text.split(',').map((part) => part.trim().toLowerCase())) {
    if (word === 'private' || word === 'loopback') allow.add(word);
    else if (word !== 'public') {
      throw new Error(`${setting}: "${word}" is not one of public, private, loopback.`);
    }
  }
  return { allow, setting };
}

export const endpointUrlPolicy = (value?: string): UrlPolicy =>
  parseUrlPolicy(value, ENDPOINT_URL_SETTING, ENDPOINT_URL_DEFAULT);
export const webhookUrlPolicy = (value?: string): UrlPolicy =>
  parseUrlPolicy(value, WEBHOOK_URL_SETTING, WEBHOOK_URL_DEFAULT);

/** Throws UrlPolicyError when `policy` refuses connecting to `address` (an IP literal). */
export function checkAddress(address: string, policy: UrlPolicy, host = address): void {
  const scope = addressScope(address);
  if (scope === 'public') return;
  const via = host === address ? address : `${host} (${address})`;
  if ((scope === 'private' || scope === 'loopback') && !policy.allow.has(scope)) {
    throw new UrlPolicyError(
      scope,
      `${via} is a ${scope} address; allowed only when ${policy.setting} includes "${scope}".`,
    );
  }
  if (scope !== 'private' && scope !== 'loopback') {
    throw new UrlPolicyError(scope, `${via} is a ${scope} address; teapot never connects to one.`);
  }
}

/**
 * The one URL check of endpoint and webhook URLs, wherever they are registered or used: parsed as
 * WHATWG URLs (what undici and the http1 transport connect to), http(s), no credentials, a host,
 * and, when the host is an IP in any encoding the parser accepts (127.1, 2130706433, 0x7f000001,
 * 0251.0376.0251.0376, [::ffff:a9fe:a9fe]), the scope of the address it is. A name is judged by
 * the addresses it resolves to, on every connection, by `guardedLookup` (DNS can change).
 */
export function checkUrl(text: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlPolicyError('scheme', 'is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlPolicyError('scheme', `must be http:// or https://, not ${url.protocol}//.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UrlPolicyError('credentials', 'must not carry credentials (user:password@).');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new UrlPolicyError('host', 'has no host.');
  if (isIP(host)) {
    checkAddress(host, policy);
    return url;
  }
  const name = host.replace(/\.$/, '');
  if (METADATA_HOSTS.has(name)) {
    throw new UrlPolicyError(
      'metadata',
      `${name} is a cloud metadata service; teapot never connects to one.`,
    );
  }
  if ((name === 'localhost' || name.endsWith('.localhost')) && !policy.allow.has('loopback')) {
    throw new UrlPolicyError(
      'loopback',
      `${name} is a loopback address; allowed only when ${policy.setting} includes "loopback".`,
    );
  }
  return url;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
/** Resolves a name to every address it has (dns.lookup with `all: true`; a test's stub for DNS). */
export type HostResolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: LookupCallback,
) => void;
/** The shape net.connect, tls.connect and undici's `connect.lookup` call. */
export type GuardedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A dns.lookup-compatible function that resolves as usual and then refuses the connection when
 * any resolved address is outside `policy` (so a name cannot flip to 169.254.169.254 between
 * registration and use). The error carries code EURLPOLICY and the UrlPolicyError as `cause`.
 */
export function guardedLookup(
  policy: UrlPolicy,
  base: HostResolver = dnsLookup as HostResolver,
): GuardedLookup {
  return (hostname, options, callback) => {
    const opts = typeof options === 'object' && options !== null ? options : {};
    base(hostname, { ...opts, all: true }, (error, resolved) => {
      if (error) return callback(error, opts.all ? [] : '', undefined);
      const addresses = resolved as LookupAddress[];
      try {
        if (addresses.length === 0) throw new UrlPolicyError('host', `${hostname} resolved to no address.`);
        for (const { address } of addresses) checkAddress(address, policy, hostname);
      } catch (refusal) {
        const wrapped: NodeJS.ErrnoException = new Error((refusal as Error).message, { cause: refusal });
        wrapped.code = 'EURLPOLICY';
        return callback(wrapped, opts.all ? [] : '', undefined);
      }
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The error is the URL policy refusing a URL or, at connect time, a resolved address (see guardedLookup). */
export function isUrlPolicyRefusal(error: unknown): boolean {
  if (error instanceof UrlPolicyError) return true;
  const err = error as (NodeJS.ErrnoException & { cause?: unknown }) | null;
  return (
    err?.code === 'EURLPOLICY' || (err?.cause as NodeJS.ErrnoException | undefined)?.code === 'EURLPOLICY'
  );
}
