import { created, endpointBody, profileBody, startApi, startApiForFile } from './api';

const api = startApiForFile();

const post = (path: string, body: Record<string, unknown>) => api.authed.post(path).send(body);

describe('endpoint registration refuses what every run would fail on', () => {
  it.each([
    ['host', { host: 'evil.example' }],
    ['content-type', { 'Content-Type': 'text/plain' }],
    ['transfer-encoding', { 'transfer-encoding': 'chunked' }],
    ['expect', { expect: '100-continue' }],
    ['x-tab-ok but x-ctl', { 'x-ctl': 'a\u0001b' }],
    ['x-del', { 'x-del': 'a\u007fb' }],
    ['x-accent', { 'x-accent': 'caf\u00e9' }],
    ['x-newline', { 'x-newline': 'a\r\nInjected: 1' }],
  ])('refuses auth header %s with 400 naming the header', async (_label, headers) => {
    const response = await post('/endpoints', endpointBody({ authHeaders: headers }));
    expect(response.status).toBe(400);
    const [name] = Object.keys(headers);
    expect(response.body.details).toEqual([
      { field: 'authHeaders', problem: expect.stringContaining(`header ${name}`) },
    ]);
  });

  it('takes a tab inside a header value, and authorization headers as usual', async () => {
    await created(
      api,
      '/endpoints',
      endpointBody({ authHeaders: { authorization: 'Bearer a\tb', 'x-org': 'o' } }),
    );
  });

  it('keeps the query string of a base URL and refuses a fragment', async () => {
    const kept = await created(
      api,
      '/endpoints',
      endpointBody({ baseUrl: 'http://10.0.0.7:8000/v1?api-version=2024-10-21' }),
    );
    expect(kept.baseUrl).toBe('http://10.0.0.7:8000/v1?api-version=2024-10-21');
    const fragment = await post('/endpoints', endpointBody({ baseUrl: 'http://10.0.0.7:8000/v1#frag' }));
    expect(fragment.status).toBe(400);
    expect(fragment.body.details[0].field).toBe('baseUrl');
  });

  it('refuses credentials in a base URL, pointing at authHeaders', async () => {
    const response = await post('/endpoints', endpointBody({ baseUrl: 'http://user:pw@10.0.0.7:8000/v1' }));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      { field: 'baseUrl', problem: expect.stringMatching(/credentials.*authHeaders/) },
    ]);
  });

  it.each([
    'http://169.254.169.254/v1',
    'http://0xa9fea9fe/v1',
    'http://2852039166/v1',
    'http://[fe80::1]:8000/v1',
    'http://[::ffff:a9fe:a9fe]/v1',
    'http://metadata.google.internal/v1',
  ])('refuses %s (link-local or cloud metadata), also in a patch', async (baseUrl) => {
    const response = await post('/endpoints', endpointBody({ baseUrl }));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ field: 'baseUrl', problem: expect.any(String) }]);
    const endpoint = await created(api, '/endpoints', endpointBody());
    const patched = await api.authed.patch(`/endpoints/${endpoint.id}`).send({ baseUrl });
    expect(patched.status).toBe(400);
  });

  it('takes private addresses by default and loopback only when TEAPOT_ENDPOINT_URL_ALLOW says so', async () => {
    const strict = await startApi({ TEAPOT_ENDPOINT_URL_ALLOW: '' });
    try {
      const postTo = (baseUrl: string) =>
        strict.http.post('/endpoints').set('authorization', strict.auth).send(endpointBody({ baseUrl }));
      expect((await postTo('http://10.0.0.7:8000/v1')).status).toBe(201);
      expect((await postTo('http://192.168.1.20:8000/v1')).status).toBe(201);
      const loopback = await postTo('http://127.0.0.1:8000/v1');
      expect(loopback.status).toBe(400);
      expect(loopback.body.details[0].problem).toContain('TEAPOT_ENDPOINT_URL_ALLOW');
      expect((await postTo('http://localhost:8000/v1')).status).toBe(400);
      // every numeric spelling of 127.0.0.1 is judged as the address it is, with the policy's message
      for (const host of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1']) {
        const numeric = await postTo(`http://${host}:8460/v1`);
        expect([numeric.status, numeric.body.details]).toEqual([
          400,
          [
            {
              field: 'baseUrl',
              problem:
                'is refused: 127.0.0.1 is a loopback address; allowed only when TEAPOT_ENDPOINT_URL_ALLOW includes "loopback".',
            },
          ],
        ]);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('profile bounds a real run can honour', () => {
  it.each([
    ['concurrency 10,000', { load: { kind: 'closed', concurrency: 10_000 } }, 'load.concurrency'],
    [
      '100,000 requests/s',
      { load: { kind: 'open', ratePerS: 100_000, arrival: 'poisson' } },
      'load.ratePerS',
    ],
    [
      'a million output tokens',
      { workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 1_000_000 } },
      'workload.outputTokens',
    ],
    [
      'a million input tokens',
      { workload: { kind: 'synthetic', inputTokens: 1_000_000, outputTokens: 8 } },
      'workload.inputTokens',
    ],
    ['a million requests', { requestCount: 1_000_000 }, 'requestCount'],
  ])('refuses %s', async (_label, overrides, field) => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const response = await post('/profiles', profileBody(endpoint.id as string, overrides));
    expect(response.status).toBe(400);
    expect(response.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
  });

  it('documents the bounds in the OpenAPI schema', async () => {
    const schemas = (await api.http.get('/openapi.json')).body.components.schemas;
    expect(schemas.ClosedLoadDto.properties.concurrency.maximum).toBe(1024);
    expect(schemas.OpenLoadDto.properties.ratePerS.maximum).toBe(1000);
    expect(schemas.SyntheticWorkloadDto.properties.outputTokens.maximum).toBe(32_768);
  });
});
