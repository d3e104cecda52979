import {
  generateSecret,
  secretKey,
  sign,
  signedHeaders,
  verify,
  WebhookVerificationError,
} from './signature';

// The Standard Webhooks specification's reference vector.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const AT = TIMESTAMP * 1000;

describe('sign', () => {
  it('gives the reference signature', () => {
    expect(sign(SECRET, ID, TIMESTAMP, BODY)).toBe(SIGNATURE);
  });

  it('signs with every secret of a rotation, space-separated', () => {
    const next = generateSecret();
    const headers = signedHeaders([SECRET, next], ID, TIMESTAMP, BODY);
    expect(headers).toEqual({
      'webhook-id': ID,
      'webhook-timestamp': String(TIMESTAMP),
      'webhook-signature': `${SIGNATURE} ${sign(next, ID, TIMESTAMP, BODY)}`,
    });
  });
});

describe('verify', () => {
  const headers = signedHeaders([SECRET], ID, TIMESTAMP, BODY);

  it('accepts the reference message and returns its id and timestamp', () => {
    expect(verify(SECRET, headers, BODY, { now: AT })).toEqual({ id: ID, timestamp: TIMESTAMP });
  });

  it('accepts within 5 minutes either way and refuses beyond', () => {
    expect(() => verify(SECRET, headers, BODY, { now: AT + 300_000 })).not.toThrow();
    expect(() => verify(SECRET, headers, BODY, { now: AT - 300_000 })).not.toThrow();
    expect(() => verify(SECRET, headers, BODY, { now: AT + 301_000 })).toThrow(/tolerance/);
    expect(() => verify(SECRET, headers, BODY, { now: AT - 301_000 })).toThrow(/tolerance/);
  });

  it('refuses a changed body, id, timestamp or secret', () => {
    const at = { now: AT };
    expect(() => verify(SECRET, headers, BODY.replace('2', '3'), at)).toThrow(WebhookVerificationError);
    expect(() => verify(SECRET, { ...headers, 'webhook-id': 'msg_other' }, BODY, at)).toThrow(/matches/);
    expect(() =>
      verify(SECRET, { ...headers, 'webhook-timestamp': String(TIMESTAMP + 1) }, BODY, at),
    ).toThrow(/matches/);
    expect(() => verify(generateSecret(), headers, BODY, at)).toThrow(/matches/);
  });

  it('accepts when any signature of a rotation matches, ignoring unknown versions', () => {
    const old = generateSecret();
    const both = signedHeaders([old, SECRET], ID, TIMESTAMP, BODY);
    expect(verify(SECRET, both, BODY, { now: AT }).id).toBe(ID);
    expect(verify(old, both, BODY, { now: AT }).id).toBe(ID);
    const v2 = { ...headers, 'webhook-signature': `v2,${SIGNATURE.slice(3)}` };
    expect(() => verify(SECRET, v2, BODY, { now: AT })).toThrow(/matches/);
  });

  it('names a missing or malformed header', () => {
    const { 'webhook-id': _id, ...noId } = headers;
    expect(() => verify(SECRET, noId, BODY, { now: AT })).toThrow(/webhook-id header is missing/);
    expect(() => verify(SECRET, { ...headers, 'webhook-timestamp': '1e9' }, BODY, { now: AT })).toThrow(
      /Unix seconds/,
    );
  });
});

describe('secrets', () => {
  it('are whsec_ + base64 of 24-64 random bytes', () => {
    for (const bytes of [24, 32, 64]) {
      const secret = generateSecret(bytes);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(secretKey(secret)).toHaveLength(bytes);
    }
    expect(generateSecret()).not.toBe(generateSecret());
    expect(() => generateSecret(23)).toThrow(RangeError);
    expect(() => generateSecret(65)).toThrow(RangeError);
  });

  it('refuse text that is not base64', () => {
    expect(() => secretKey('whsec_not base64!')).toThrow(/base64/);
  });
});
