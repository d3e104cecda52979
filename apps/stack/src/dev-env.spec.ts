import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSecretKey } from '@teapot/config';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, readEnvFile, resolveStackEnv } from './dev-env';

describe('resolveStackEnv', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'teapot-dev-env-'));
    file = path.join(dir, '.teapot', 'dev.env');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to the local services and generates both secrets once, into a private file', () => {
    const first = resolveStackEnv({}, file);
    expect(first.env.DATABASE_URL).toBe(DEFAULT_DATABASE_URL);
    expect(first.env.REDIS_URL).toBe(DEFAULT_REDIS_URL);
    expect(first.env.TEAPOT_REDIS_PREFIX).toBeUndefined();
    expect(first.generated).toEqual(['TEAPOT_SECRET_KEY', 'TEAPOT_API_KEY']);
    expect(parseSecretKey(first.env.TEAPOT_SECRET_KEY)?.length).toBe(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = resolveStackEnv({}, file);
    expect(second.generated).toEqual([]);
    expect(second.env).toEqual(first.env);
    expect(second.apiKeyFromEnvironment).toBe(false);
  });

  it('lets the environment win and then writes nothing', () => {
    const resolved = resolveStackEnv(
      {
        DATABASE_URL: 'postgresql://db.internal/teapot',
        REDIS_URL: 'redis://cache.internal:6379',
        TEAPOT_REDIS_PREFIX: 'staging',
        TEAPOT_SECRET_KEY: 'a'.repeat(64),
        TEAPOT_API_KEY: 'from-the-environment-123',
      },
      file,
    );
    expect(resolved.env).toEqual({
      DATABASE_URL: 'postgresql://db.internal/teapot',
      REDIS_URL: 'redis://cache.internal:6379',
      TEAPOT_REDIS_PREFIX: 'staging',
      TEAPOT_SECRET_KEY: 'a'.repeat(64),
      TEAPOT_API_KEY: 'from-the-environment-123',
    });
    expect(resolved.apiKeyFromEnvironment).toBe(true);
    expect(() => statSync(file)).toThrow();
  });

  it('adds only the missing secret and keeps what the file already holds', () => {
    writeFileSync(path.join(dir, 'dev.env'), '# mine\nTEAPOT_API_KEY = kept-api-key-0123456789\nOTHER=1\n');
    const resolved = resolveStackEnv({ TEAPOT_SECRET_KEY: '' }, path.join(dir, 'dev.env'));
    expect(resolved.generated).toEqual(['TEAPOT_SECRET_KEY']);
    expect(resolved.env.TEAPOT_API_KEY).toBe('kept-api-key-0123456789');
    const stored = readEnvFile(path.join(dir, 'dev.env'));
    expect(stored.get('OTHER')).toBe('1');
    expect(stored.get('TEAPOT_SECRET_KEY')).toBe(resolved.env.TEAPOT_SECRET_KEY);
    expect(readFileSync(path.join(dir, 'dev.env'), 'utf8')).not.toContain('# mine');
  });
});

describe('docs/settings.md, the npm start table', () => {
  it('names every variable the launcher reads, with its defaults', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/settings.md'), 'utf8');
    const section = doc.split(/^## /m).find((part) => part.startsWith('`npm start`')) ?? '';
    const rows = new Map(
      section
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map(([, variable, fallback]) => [variable.replace(/`/g, ''), fallback]),
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'teapot-dev-env-'));
    try {
      const { env } = resolveStackEnv({ TEAPOT_REDIS_PREFIX: 'documented' }, path.join(dir, 'dev.env'));
      expect([...rows.keys()].sort()).toEqual(Object.keys(env).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(rows.get('DATABASE_URL')).toBe(`\`${DEFAULT_DATABASE_URL}\``);
    expect(rows.get('REDIS_URL')).toBe(`\`${DEFAULT_REDIS_URL}\``);
  });
});
