import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;
/** Standard Webhooks: receivers refuse messages whose timestamp is further than this from now. */
export const DEFAULT_TOLERANCE_S = 5 * 60;

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** A new signing secret: `whsec_` + base64 of `bytes` random bytes (24-64, default 32). */
export function generateSecret(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < SECRET_MIN_BYTES || bytes > SECRET_MAX_BYTES) {
    throw new RangeError(
      `A webhook secret has ${SECRET_MIN_BYTES}-${SECRET_MAX_BYTES} random bytes, got ${bytes}.`,
    );
  }
  return SECRET_PREFIX + randomBytes(bytes).toString('base64');
}

/** The HMAC key of a `whsec_` secret. Throws when the text is not one. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new Error('A webhook secret is "whsec_" followed by standard base64.');
  }
  return Buffer.from(encoded, 'base64');
}

/** One `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` signature. `timestamp` in Unix seconds. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers for one message. Several secrets (a rotation in progress)
 * give several space-separated signatures, so receivers holding either secret accept it.
 */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  if (secrets.length === 0) throw new Error('Signing needs at least one secret.');
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type IncomingHeaders = Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Unix milliseconds; defaults to Date.now(). */
  now?: number;
  toleranceS?: number;
}

/**
 * Receiver side: checks a delivery's headers and raw body against `secret`. Returns the message
 * id and timestamp; throws WebhookVerificationError saying what is wrong otherwise.
 */
export function verify(
  secret: string,
  headers: IncomingHeaders,
  body: string,
  options: VerifyOptions = {},
): { id: string; timestamp: number } {
  const id = header(headers, WEBHOOK_ID_HEADER);
  const timestampText = header(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError(`${WEBHOOK_TIMESTAMP_HEADER} is not Unix seconds.`);
  }
  const timestamp = Number(timestampText);
  const nowS = Math.floor((options.now ?? Date.now()) / 1000);
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  if (Math.abs(nowS - timestamp) > toleranceS) {
    throw new WebhookVerificationError(
      `${WEBHOOK_TIMESTAMP_HEADER} is ${nowS - timestamp} s from now, beyond the ${toleranceS} s tolerance.`,
    );
  }
  const expected = Buffer.from(sign(secret, id, timestamp, body).slice('v1,'.length), 'base64');
  for (const candidate of signatures.split(' ')) {
    const [version, mac] = candidate.split(',', 2);
    if (version !== 'v1' || mac === undefined) continue;
    const given = Buffer.from(mac, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { id, timestamp };
  }
  throw new WebhookVerificationError('No v1 signature in webhook-signature matches the secret.');
}

function header(headers: IncomingHeaders, name: string): string {
  const value = headers[name] ?? headers[name.replace(/(^|-)\w/g, (c) => c.toUpperCase())];
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (!text) throw new WebhookVerificationError(`The ${name} header is missing.`);
  return text;
}
