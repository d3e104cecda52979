import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Reads TEAPOT_SECRET_KEY: 32 bytes as 64 hex characters or as base64 (standard or url-safe).
 * Returns null when the text is neither, so callers can say what is wrong without echoing it.
 */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === KEY_BYTES ? key : null;
}

/** AES-256-GCM with a fresh random 12-byte IV. Layout: iv (12) | tag (16) | ciphertext. */
export function encryptSecret(plaintext: string, key: Buffer): Buffer {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function decryptSecret(sealed: Uint8Array, key: Buffer): string {
  assertKey(key);
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < IV_BYTES + TAG_BYTES) {
    throw new Error('Secret could not be decrypted: the stored value is too short to be AES-256-GCM output.');
  }
  const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error(
      'Secret could not be decrypted: TEAPOT_SECRET_KEY differs from the key it was encrypted with, or the stored value was altered.',
    );
  }
}

/** An endpoint's auth headers, sealed as one JSON object (the `authHeadersEnc` column). */
export function encryptHeaders(headers: Record<string, string>, key: Buffer): Buffer {
  return encryptSecret(JSON.stringify(headers), key);
}

export function decryptHeaders(sealed: Uint8Array, key: Buffer): Record<string, string> {
  const parsed: unknown = JSON.parse(decryptSecret(sealed, key));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('Decrypted auth headers are not a JSON object of header name to value.');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`Decrypted auth header ${name} is not a string.`);
    headers[name] = value;
  }
  return headers;
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new Error(`AES-256-GCM needs a ${KEY_BYTES}-byte key, got ${key.length}.`);
}
