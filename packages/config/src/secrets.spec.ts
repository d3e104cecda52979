import { randomBytes } from 'node:crypto';
import { decryptHeaders, decryptSecret, encryptHeaders, encryptSecret, parseSecretKey } from './secrets';

const key = randomBytes(32);

describe('secrets', () => {
  it('round-trips and never contains the plaintext', () => {
    const plaintext = 'Bearer sk-live-0123456789';
    const sealed = encryptSecret(plaintext, key);
    expect(sealed.includes(Buffer.from(plaintext))).toBe(false);
    expect(sealed.length).toBe(12 + 16 + Buffer.byteLength(plaintext));
    expect(decryptSecret(sealed, key)).toBe(plaintext);
  });

  it('uses a fresh IV per encryption', () => {
    expect(encryptSecret('same', key).equals(encryptSecret('same', key))).toBe(false);
  });

  it('refuses a wrong key and a tampered ciphertext', () => {
    const sealed = encryptSecret('value', key);
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow(/TEAPOT_SECRET_KEY differs/);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => decryptSecret(tampered, key)).toThrow(/altered/);
    expect(() => decryptSecret(Buffer.alloc(10), key)).toThrow(/too short/);
  });

  it('round-trips a header map, from a Uint8Array view as the database returns it', () => {
    const headers = { authorization: 'Bearer sk-x', 'x-org': 'teapot' };
    const sealed = encryptHeaders(headers, key);
    const view = new Uint8Array(Buffer.concat([Buffer.alloc(3), sealed])).subarray(3);
    expect(decryptHeaders(view, key)).toEqual(headers);
  });

  it('parses hex and base64 keys and rejects the rest', () => {
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretKey('zz'.repeat(32))).toBeNull();
    expect(parseSecretKey(randomBytes(31).toString('base64'))).toBeNull();
  });
});
