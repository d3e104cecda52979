import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { created, startApi, startApiForFile } from './api';
import { fillPath, type Operation, operationsOf } from './routes';

// The matrix sends many wrong keys on purpose; the limit on them has its own test below.
const api = startApiForFile({ TEAPOT_AUTH_FAILURES_PER_MINUTE: '10000' });
let operations: Operation[];
let readKey: string;
let revokedKey: string;

beforeAll(async () => {
  operations = (await operationsOf(api)).operations;
  readKey = (await created<{ key: string }>(api, '/api-keys', { name: 'reader', scope: 'read' })).key;
  const revoked = await created<{ id: string; key: string }>(api, '/api-keys', {
    name: 'gone',
    scope: 'write',
  });
  revokedKey = revoked.key;
  expect((await api.authed.delete(`/api-keys/${revoked.id}`)).status).toBe(200);
});

// Ids that name nothing: a route that lets a key through answers 404/400, never changes data.
const NOBODY = {
  id: '00000000-0000-4000-8000-000000000000',
  endpointId: '00000000-0000-4000-8000-000000000000',
  version: '1',
};

async function statusOf(op: Operation, authorization: string | null): Promise<number> {
  let request = api.http[op.method](fillPath(op.path, NOBODY));
  if (authorization !== null) request = request.set('authorization', authorization);
  if (op.body) request = request.send({});
  return (await request).status;
}

describe('auth matrix over every route of the OpenAPI document', () => {
  it('declares /health as the one public route', () => {
    expect(operations.filter((op) => op.public).map((op) => op.path)).toEqual(['/health']);
  });

  it('serves without a key exactly what the README says is public', async () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    for (const path of ['/health', '/openapi.json', '/openapi.yaml', '/docs']) {
      expect([path, (await api.http.get(path)).status]).toEqual([path, 200]);
      expect(readme).toContain(`\`${path}\``);
    }
    expect(readme).not.toMatch(/every route but `\/health`/i);
  });

  it('answers 401 without a key, with a wrong or revoked key, and with a malformed header', async () => {
    for (const op of operations.filter((o) => !o.public)) {
      const label = `${op.method} ${op.path}`;
      expect([label, await statusOf(op, null)]).toEqual([label, 401]);
      expect([label, await statusOf(op, 'Bearer tpk_not-a-key-anyone-was-given')]).toEqual([label, 401]);
      expect([label, await statusOf(op, `Bearer ${revokedKey}`)]).toEqual([label, 401]);
      expect([label, await statusOf(op, api.env.TEAPOT_API_KEY)]).toEqual([label, 401]);
      expect([
        label,
        await statusOf(op, `Basic ${Buffer.from(`x:${api.env.TEAPOT_API_KEY}`).toString('base64')}`),
      ]).toEqual([label, 401]);
    }
  });

  it('lets a read key GET (but not list the keys, and POST the queries that only read) and answers 403 on every other method', async () => {
    // POST only because the query is a body: a comparison (of runs or of sweeps) reads and stores nothing.
    const readingPosts = ['post /comparisons', 'post /comparisons/sweeps'];
    for (const op of operations.filter((o) => !o.public)) {
      const status = await statusOf(op, `Bearer ${readKey}`);
      const label = `${op.method} ${op.path}`;
      if (op.method === 'get' && op.path === '/api-keys') expect([label, status]).toEqual([label, 403]);
      else if (op.method === 'get' || readingPosts.includes(label))
        expect([label, [401, 403].includes(status)]).toEqual([label, false]);
      else expect([label, status]).toEqual([label, 403]);
    }
    // Listing keys changes nothing: the refusal names the route, not "changes data".
    const listing = await api.http.get('/api-keys').set('authorization', `Bearer ${readKey}`);
    expect(listing.body.message).toBe('GET /api-keys needs a write-scope API key; this key is read-only.');
  });

  it('lets the write key through everywhere', async () => {
    for (const op of operations) {
      const status = await statusOf(op, api.auth);
      expect([`${op.method} ${op.path}`, [401, 403].includes(status)]).toEqual([
        `${op.method} ${op.path}`,
        false,
      ]);
    }
  });

  it('serves /health without a key, and tells clients how to authenticate', async () => {
    expect((await api.http.get('/health')).status).toBe(200);
    const response = await api.http.get('/endpoints');
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Send an API key as `Authorization: Bearer <key>`.',
    });
  });
});

describe('API keys', () => {
  it('shows a new key once, stores only its hash, lists without secrets, and revokes', async () => {
    const key = await created<{ id: string; key: string; fingerprint: string; scope: string }>(
      api,
      '/api-keys',
      {
        name: 'ci',
        scope: 'write',
      },
    );
    expect(key.key).toMatch(/^tpk_[A-Za-z0-9_-]{32}$/);
    expect(key.fingerprint).toBe(createHash('sha256').update(key.key).digest('hex').slice(0, 8));
    expect(key).not.toHaveProperty('keyPrefix');
    const stored = await api.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(key.key);

    const list = await api.http.get('/api-keys').set('authorization', `Bearer ${key.key}`);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(key.key);
    expect(list.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: key.id, name: 'ci', lastUsedAt: expect.any(String) }),
      ]),
    );
    expect(list.body.items.find((item: { name: string }) => item.name === 'TEAPOT_API_KEY')).toMatchObject({
      scope: 'write',
      bootstrap: true,
      revokedAt: null,
    });
    // No listing shows any run of characters of any key, the bootstrap key included.
    for (const secret of [key.key, api.env.TEAPOT_API_KEY]) {
      for (let i = 0; i + 6 <= secret.length; i++) {
        expect(JSON.stringify(list.body)).not.toContain(secret.slice(i, i + 6));
      }
    }

    const revoked = await api.authed.delete(`/api-keys/${key.id}`);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await api.http.get('/endpoints').set('authorization', `Bearer ${key.key}`)).status).toBe(401);
    expect((await api.authed.delete(`/api-keys/${key.id}`)).body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('keeps one row for TEAPOT_API_KEY across restarts, also concurrent ones', async () => {
    const before = await api.prisma.apiKey.count({ where: { name: 'TEAPOT_API_KEY' } });
    const service = api.app.get(ApiKeysService);
    await Promise.all([service.onApplicationBootstrap(), service.onApplicationBootstrap()]);
    expect(await api.prisma.apiKey.count({ where: { name: 'TEAPOT_API_KEY' } })).toBe(before);
  });

  it('refuses a key creation that names no scope', async () => {
    const response = await api.authed.post('/api-keys').send({ name: 'x', scope: 'admin' });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      { field: 'scope', problem: 'must be one of the following values: read, write' },
    ]);
  });
});

describe('the bootstrap key (TEAPOT_API_KEY)', () => {
  it('replaces its predecessor when the variable changes, and a revoked one does not lock the new one out', async () => {
    const world = api.world;
    const restartWith = async (key: string) => {
      const again = await startApi({ TEAPOT_API_KEY: key }, world);
      await again.closeApp();
    };
    const first = api.env.TEAPOT_API_KEY;
    const second = `tpk_rotated_${'0123456789abcdef'.repeat(2)}`;
    await restartWith(second);
    expect((await api.http.get('/endpoints').set('authorization', `Bearer ${first}`)).status).toBe(401);
    expect((await api.http.get('/endpoints').set('authorization', `Bearer ${second}`)).status).toBe(200);
    const bootstrap = await api.prisma.apiKey.findMany({
      where: { bootstrap: true },
      orderBy: { createdAt: 'asc' },
    });
    expect(bootstrap.map((key) => key.revokedAt === null)).toEqual([false, true]);

    // Going back to a revoked value: it stays revoked, and the current one keeps working.
    await restartWith(first);
    expect((await api.http.get('/endpoints').set('authorization', `Bearer ${first}`)).status).toBe(401);
    expect((await api.http.get('/endpoints').set('authorization', `Bearer ${second}`)).status).toBe(200);
  });
});
