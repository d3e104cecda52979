import { gzipSync } from 'node:zlib';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();

const get = (path: string) => api.authed.get(path);
const post = (path: string) => api.authed.post(path);
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe('bodies the API will not read', () => {
  it.each(['gzip', 'deflate', 'br'])(
    'refuses a body sent with Content-Encoding: %s with 415, without a key and without an error log',
    async (encoding) => {
      const before = api.logs().length;
      const response = await api.http
        .post('/endpoints')
        .set('content-type', 'application/json')
        .set('content-encoding', encoding)
        .send('{"name": "plain, not compressed"}');
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({ statusCode: 415, message: expect.stringContaining('Encoding') });
      expect(api.logs().slice(before)).not.toContain('"level":50');
    },
  );

  it('refuses a really compressed body too: nothing is inflated before the key is checked', async () => {
    const response = await post('/endpoints')
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send(gzipSync(JSON.stringify(endpointBody())));
    expect(response.status).toBe(415);
  });

  it('answers 10,000-deep JSON with a plain 400 naming the depth limit', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const response = await post('/endpoints').set('content-type', 'application/json').send(deep);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/nested more than \d+ levels/);
    expect(response.body.message).not.toMatch(/call stack/i);
  });

  it('reads application/merge-patch+json on PATCH, and refuses other JSON flavours with 415', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const patchAs = (contentType: string, body: object) =>
      api.authed
        .patch(`/endpoints/${endpoint.id}`)
        .set('content-type', contentType)
        .send(JSON.stringify(body));
    const patched = await patchAs('application/merge-patch+json', { model: 'patched-model' });
    expect(patched.status).toBe(200);
    expect(patched.body.model).toBe('patched-model');
    const other = await patchAs('application/vnd.api+json', { model: 'ignored' });
    expect(other.status).toBe(415);
  });
});

describe('values that reach the database', () => {
  it('refuses an array where the serving configuration object belongs, also an empty one', async () => {
    for (const config of [[{ gpuCount: 2 }], []]) {
      const response = await post('/endpoints').send(endpointBody({ config }));
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual([{ field: 'config', problem: 'must be a JSON object' }]);
    }
  });

  it.each(['/runs', '/endpoints', '/profiles'])(
    'answers a cursor with an impossible time on %s with 400',
    async (path) => {
      for (const time of [
        '0000-01-01T00:00:00.000Z',
        '+275760-09-13T00:00:00.000Z',
        '-000001-01-01T00:00:00Z',
      ]) {
        const response = await get(
          `${path}?cursor=${cursorOf(`${time}|00000000-0000-4000-8000-000000000000`)}`,
        );
        expect([time, response.status]).toEqual([time, 400]);
        expect(response.body.details).toEqual([
          { field: 'cursor', problem: 'is not a cursor this API returned' },
        ]);
      }
    },
  );

  it('treats % and _ in ?name= as the characters themselves', async () => {
    const tag = `like-${process.pid}`;
    const percent = await created(
      api,
      '/endpoints',
      endpointBody({ name: `a%b-${process.pid}`, tags: [tag] }),
    );
    const under = await created(api, '/endpoints', endpointBody({ name: `a_b-${process.pid}`, tags: [tag] }));
    await created(api, '/endpoints', endpointBody({ name: `axb-${process.pid}`, tags: [tag] }));
    await created(api, '/endpoints', endpointBody({ name: `a\\b-${process.pid}`, tags: [tag] }));
    const names = async (name: string) =>
      (await get(`/endpoints?tag=${tag}&name=${encodeURIComponent(name)}`)).body.items.map(
        (e: { id: string }) => e.id,
      );
    expect(await names('%')).toEqual([percent.id]);
    expect(await names('a_b')).toEqual([under.id]);
    expect(await names('\\')).toHaveLength(1);
  });
});

describe('one strict parser for whole numbers and times', () => {
  it.each(['01', '1e1', '0x10', ' 5', '5 ', '+5', '5.0', '-0'])('refuses limit=%j', async (limit) => {
    const response = await get(`/endpoints?limit=${encodeURIComponent(limit)}`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      { field: 'limit', problem: 'must be a whole number from 1 to 200' },
    ]);
  });

  it('refuses the same spellings in path versions and request pages', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody({ config: { engine: 'vllm' } }));
    expect((await get(`/endpoints/${endpoint.id}/configs/01`)).status).toBe(400);
    expect((await get(`/endpoints/${endpoint.id}/configs/1`)).status).toBe(200);
    const run = '00000000-0000-4000-8000-000000000000';
    expect((await get(`/runs/${run}/requests?limit=1e2`)).status).toBe(400);
    expect((await get(`/runs/${run}/requests?cursor=0x10`)).status).toBe(400);
  });

  it('reads times with a zone from 1970 to 9999 and refuses the rest alike on /runs and /trends', async () => {
    expect((await get('/runs?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00%2B02:00')).status).toBe(200);
    expect((await get('/runs?from=2026-01-01')).status).toBe(200);
    for (const from of [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T00:00:00',
      '20260101',
    ]) {
      for (const path of ['/runs?', '/trends?metric=itl&statistic=p99&bucket=day&']) {
        const response = await get(`${path}from=${encodeURIComponent(from)}`);
        expect([path, from, response.status]).toEqual([path, from, 400]);
        expect(response.body.details).toEqual([
          { field: 'from', problem: expect.stringContaining('must be a time in ISO 8601') },
        ]);
      }
    }
  });
});

describe('plain answers', () => {
  it('answers POST /runs with an unknown profile with 404 naming the field', async () => {
    const response = await post('/runs').send({ profileId: '00000000-0000-4000-8000-000000000000' });
    expect(response.status).toBe(404);
    expect(response.body.details).toEqual([{ field: 'profileId', problem: 'names no profile' }]);
  });

  it('says one thing per field: a missing name is missing, a string where tags belong is not a list', async () => {
    const { name: _name, ...nameless } = endpointBody();
    const missing = await post('/endpoints').send(nameless);
    expect(missing.body.details).toEqual([{ field: 'name', problem: 'is required' }]);
    const tags = await post('/endpoints').send(endpointBody({ tags: 'a' }));
    expect(tags.body.details).toEqual([{ field: 'tags', problem: 'must be an array' }]);
  });

  it('names a duplicate profile in plain words', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    await created(api, '/profiles', profileBody(endpoint.id as string, { name: 'twice' }));
    const again = await post('/profiles').send(profileBody(endpoint.id as string, { name: 'twice' }));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      'Already exists: another profile of the same endpoint has the same name.',
    );
  });

  it("documents /health's 503 body, and calls the bearer scheme an API key, not a JWT", async () => {
    const doc = (await api.http.get('/openapi.json')).body;
    const health = doc.paths['/health'].get.responses['503'];
    expect(health.content['application/json'].schema).toBeDefined();
    expect(doc.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
    expect(doc.components.securitySchemes.bearer.description).toMatch(/API key/);
  });
});
