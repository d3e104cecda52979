import { EnvError, loadApiEnv } from './env';

const HEX_KEY = 'ab'.repeat(32);
const VALID = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/teapot',
  REDIS_URL: 'redis://127.0.0.1:6379',
  TEAPOT_SECRET_KEY: HEX_KEY,
  TEAPOT_API_KEY: 'a-bootstrap-key-long-and-varied-enough',
};

function problemsOf(env: Record<string, string | undefined>): EnvError {
  try {
    loadApiEnv(env);
  } catch (error) {
    if (error instanceof EnvError) return error;
    throw error;
  }
  throw new Error('expected loadApiEnv to throw');
}

describe('loadApiEnv', () => {
  it('parses a valid environment and applies defaults', () => {
    const env = loadApiEnv(VALID);
    expect(env.PORT).toBe(3000);
    expect(env.LOG_LEVEL).toBe('info');
    expect(env.TEAPOT_REDIS_PREFIX).toBe('teapot');
    expect(env.HOST).toBe('127.0.0.1');
    expect(env.TEAPOT_AUTH_FAILURES_PER_MINUTE).toBe(20);
    expect(env.TEAPOT_SECRET_KEY).toEqual(Buffer.from(HEX_KEY, 'hex'));
  });

  it('reads PORT as a number and accepts a base64 secret key', () => {
    const key = Buffer.alloc(32, 7);
    const env = loadApiEnv({
      ...VALID,
      PORT: '8080',
      TEAPOT_SECRET_KEY: key.toString('base64'),
      LOG_LEVEL: 'debug',
    });
    expect(env.PORT).toBe(8080);
    expect(env.LOG_LEVEL).toBe('debug');
    expect(env.TEAPOT_SECRET_KEY).toEqual(key);
  });

  it('names every missing variable in one error', () => {
    const error = problemsOf({});
    expect(error.problems.map((p) => p.variable).sort()).toEqual([
      'DATABASE_URL',
      'REDIS_URL',
      'TEAPOT_API_KEY',
      'TEAPOT_SECRET_KEY',
    ]);
    expect(error.problems.every((p) => p.problem === 'is missing')).toBe(true);
    expect(error.message).toContain('DATABASE_URL is missing');
    expect(error.message).toContain('openssl rand -base64 32');
  });

  it('treats empty strings as missing', () => {
    const error = problemsOf({ ...VALID, REDIS_URL: '  ' });
    expect(error.problems).toEqual([{ variable: 'REDIS_URL', problem: 'is missing' }]);
  });

  it('names invalid values without echoing them', () => {
    const secret = 'not-a-32-byte-key-but-secret';
    const error = problemsOf({
      ...VALID,
      DATABASE_URL: 'mysql://x/y',
      TEAPOT_SECRET_KEY: secret,
      PORT: '70000',
      LOG_LEVEL: 'loud',
      TEAPOT_REDIS_PREFIX: 'has space',
      TEAPOT_API_KEY: 'short',
    });
    expect(Object.fromEntries(error.problems.map((p) => [p.variable, p.problem]))).toEqual({
      DATABASE_URL: 'is invalid: must be a postgres:// or postgresql:// URL',
      TEAPOT_SECRET_KEY: 'is invalid: must be 32 bytes written as base64 (44 characters) or hex (64)',
      PORT: 'is invalid: must be 0-65535',
      LOG_LEVEL: 'is invalid: must be one of fatal, error, warn, info, debug, trace, silent',
      TEAPOT_REDIS_PREFIX: 'is invalid: must be 1-64 characters of letters, digits, _ . : -',
      TEAPOT_API_KEY: 'is invalid: must be at least 32 characters, at least 10 of them different',
    });
    expect(error.message).not.toContain(secret);
  });

  it('refuses API keys that are short or repetitive, also ones that were accepted before', () => {
    for (const key of ['sixteen-chars-ok', 'a'.repeat(64), '0123456789'.repeat(2), 'ab'.repeat(40)]) {
      expect(problemsOf({ ...VALID, TEAPOT_API_KEY: key }).problems.map((p) => p.variable)).toEqual([
        'TEAPOT_API_KEY',
      ]);
    }
    expect(
      loadApiEnv({ ...VALID, TEAPOT_API_KEY: 'f3a9'.repeat(2) + '0b7c1d2e5a6f8e9d4c3b2a10' }).TEAPOT_API_KEY,
    ).toHaveLength(32);
  });

  it('refuses a base64 key that is not 32 bytes', () => {
    const error = problemsOf({ ...VALID, TEAPOT_SECRET_KEY: Buffer.alloc(16).toString('base64') });
    expect(error.problems.map((p) => p.variable)).toEqual(['TEAPOT_SECRET_KEY']);
  });
});
