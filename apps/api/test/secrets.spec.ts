import { decryptHeaders } from '@teapot/config';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const TOKEN = 'sk-live-7f3a9c1e5b2d4f6a8c0e';
const ORG = 'org-secret-ab12cd34';

const api = startApiForFile();
const bodies: string[] = [];

async function call(method: 'get' | 'post' | 'patch', path: string, body?: object) {
  const request = api.authed[method](path);
  const response = await (body ? request.send(body) : request);
  bodies.push(response.text);
  return response;
}

describe('endpoint auth headers', () => {
  it('are encrypted at rest, readable with the key, masked in every response and absent from logs', async () => {
    const create = await call(
      'post',
      '/endpoints',
      endpointBody({ authHeaders: { Authorization: `Bearer ${TOKEN}`, 'X-Org': ORG } }),
    );
    expect(create.status).toBe(201);
    expect(create.body.authHeaders).toEqual({ authorization: '****', 'x-org': '****' });
    const id = create.body.id as string;

    await call('get', `/endpoints/${id}`);
    await call('get', '/endpoints');
    await call('patch', `/endpoints/${id}`, { model: 'other' });
    const profile = await call('post', '/profiles', profileBody(id));
    const run = await call('post', '/runs', { profileId: profile.body.id });
    await call('get', `/runs/${run.body.id}`);
    // Sweeps and priced configurations show what they measured and cost, never the endpoint's auth.
    await call('post', `/endpoints/${id}/configs`, { gpuCount: 2, usdPerGpuHour: 2.5 });
    await call('get', `/endpoints/${id}/configs`);
    const sweepProfile = await call(
      'post',
      '/profiles',
      profileBody(id, { sweep: { kind: 'points', dimension: 'rate', points: [1, 2] } }),
    );
    const sweep = await call('post', '/sweeps', { profileId: sweepProfile.body.id });
    expect(sweep.status).toBe(202);
    await call('get', `/sweeps/${sweep.body.id}`);
    await call('get', '/sweeps');
    // A refused request carrying the secret must not echo it either.
    const refused = await call(
      'post',
      '/endpoints',
      endpointBody({ authHeaders: { authorization: `Bearer ${TOKEN}` }, apiKind: 'grpc' }),
    );
    expect(refused.status).toBe(400);

    for (const body of bodies) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain(ORG);
    }

    const [row] = await api.prisma.$queryRaw<Array<{ dump: string; enc: Buffer }>>`
      SELECT row_to_json(e)::text AS dump, e.auth_headers_enc AS enc FROM endpoints e WHERE e.id = ${id}::uuid`;
    expect(row.dump).not.toContain(TOKEN);
    expect(row.dump).not.toContain(ORG);
    expect(row.enc.includes(Buffer.from(TOKEN))).toBe(false);
    expect(row.enc.includes(Buffer.from(ORG))).toBe(false);
    // What the worker does to call the endpoint.
    expect(decryptHeaders(row.enc, api.env.TEAPOT_SECRET_KEY)).toEqual({
      authorization: `Bearer ${TOKEN}`,
      'x-org': ORG,
    });

    const logs = api.logs();
    expect(logs).toContain(`"url":"/endpoints/${id}"`);
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(ORG);
    expect(logs).not.toContain(api.env.TEAPOT_API_KEY);
  });

  it('are replaced by a patch and removed by an empty map', async () => {
    const endpoint = await created(
      api,
      '/endpoints',
      endpointBody({ authHeaders: { authorization: 'Bearer one' } }),
    );
    const replaced = await call('patch', `/endpoints/${endpoint.id}`, { authHeaders: { 'api-key': 'two' } });
    expect(replaced.body.authHeaders).toEqual({ 'api-key': '****' });
    const stored = await api.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id as string } });
    expect(decryptHeaders(stored.authHeadersEnc as Uint8Array, api.env.TEAPOT_SECRET_KEY)).toEqual({
      'api-key': 'two',
    });

    const cleared = await call('patch', `/endpoints/${endpoint.id}`, { authHeaders: {} });
    expect(cleared.body.authHeaders).toEqual({});
    const after = await api.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id as string } });
    expect(after.authHeadersEnc).toBeNull();
    expect(after.authHeaderNames).toEqual([]);
  });

  it('refuses header names and values that cannot be sent', async () => {
    for (const authHeaders of [
      { 'bad name': 'x' },
      { authorization: 'a\r\nInjected: 1' },
      { authorization: 5 },
      ['x'],
    ]) {
      const response = await call('post', '/endpoints', endpointBody({ authHeaders }));
      expect(response.status).toBe(400);
      expect(response.body.details[0].field).toBe('authHeaders');
    }
  });
});
