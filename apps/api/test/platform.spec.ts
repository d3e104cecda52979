import type { AddressInfo } from 'node:net';
import type { OpenAPIObject } from '@nestjs/swagger';
import { SAMPLE_CAPACITY_SEARCH } from '@teapot/contracts/testing';
import { createApp, listen } from '../src/app';
import { offlineOpenApiDocument } from '../src/openapi';
import { created, endpointBody, profileBody, startApi, startApiForFile } from './api';

const api = startApiForFile();

describe('request ids', () => {
  it('honours a safe x-request-id, returns it and logs it', async () => {
    const response = await api.authed.get('/endpoints').set('x-request-id', 'trace-abc.123');
    expect(response.headers['x-request-id']).toBe('trace-abc.123');
    expect(api.logs()).toContain('"id":"trace-abc.123"');
  });

  it('makes one when the caller sends none or an unsafe one', async () => {
    const none = await api.http.get('/health');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await api.http.get('/health').set('x-request-id', 'a b\u00e9"}');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('errors are mapped once, with one shape', () => {
  it('names the nested field and the problem', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const response = await api.authed
      .post('/profiles')
      .send(profileBody(endpoint.id as string, { load: { kind: 'closed', concurrency: 0 } }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Validation failed: load.concurrency must not be less than 1',
      details: [{ field: 'load.concurrency', problem: 'must not be less than 1' }],
    });
  });

  it('names array elements by index', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const response = await api.authed.post('/profiles').send(
      profileBody(endpoint.id as string, {
        workload: { kind: 'dataset', prompts: [{ prompt: 'ok' }, { prompt: '' }] },
      }),
    );
    expect(response.body.details).toEqual([
      { field: 'workload.prompts[1].prompt', problem: 'must be longer than or equal to 1 characters' },
    ]);
  });

  it('answers malformed JSON with 400, a too-large body with 413, another content type with 415', async () => {
    const post = () => api.authed.post('/endpoints');
    const malformed = await post().set('content-type', 'application/json').send('{"name": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const large = await post().send({ name: 'x'.repeat(1_100_000) });
    expect(large.body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Request body is larger than 1 MB.',
    });
    const text = await post().set('content-type', 'text/plain').send('name=x');
    expect(text.status).toBe(415);
  });

  it('answers unknown routes with 404 in the same shape', async () => {
    const response = await api.authed.get('/nowhere');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });
});

describe('OpenAPI', () => {
  it('serves the document and the UI, built from the validating DTOs', async () => {
    const doc = await api.http.get('/openapi.json');
    expect(doc.status).toBe(200);
    const schemas = doc.body.components.schemas;
    expect(schemas.ClosedLoadDto.properties.concurrency).toMatchObject({ minimum: 1, maximum: 1024 });
    expect(schemas.CreateEndpointDto.required).toEqual(
      expect.arrayContaining(['name', 'baseUrl', 'apiKind', 'model']),
    );
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/runs/{id}', '/endpoints/{endpointId}/configs/{version}']),
    );
    const ui = await api.http.get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('gives every operation a success response, so clients generated from it are typed', async () => {
    const doc = (await api.http.get('/openapi.json')).body as OpenAPIObject;
    const untyped = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(
          ([, op]) => !Object.keys((op as { responses: object }).responses).some((c) => c.startsWith('2')),
        )
        .map(([method]) => `${method} ${path}`),
    );
    expect(untyped).toEqual([]);
  });

  it('is the same document when built offline (what the dashboard build generates its types from)', async () => {
    const served = (await api.http.get('/openapi.json')).body;
    expect(JSON.parse(JSON.stringify(await offlineOpenApiDocument()))).toEqual(served);
  });
});

describe('health', () => {
  it('reports database and Redis up with the run queue counts', async () => {
    const response = await api.http.get('/health');
    expect(response.status).toBe(200);
    expect(response.body.info).toMatchObject({
      database: { status: 'up' },
      redis: { status: 'up', runQueue: { queue: 'runs', waiting: expect.any(Number) } },
    });
  });

  it('answers 503 naming Redis when it is down, and a triggered run or sweep fails visibly instead of hanging', async () => {
    const cut = await startApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const health = await cut.http.get('/health');
      expect(health.status).toBe(503);
      expect(health.body.error).toMatchObject({ redis: { status: 'down' } });
      expect(health.body.info).toMatchObject({ database: { status: 'up' } });

      const endpoint = await created(cut, '/endpoints', endpointBody());
      const profile = await created(cut, '/profiles', profileBody(endpoint.id as string));
      const trigger = await cut.http
        .post('/runs')
        .set('authorization', cut.auth)
        .send({ profileId: profile.id });
      expect(trigger.status).toBe(503);
      const [run] = (await cut.http.get('/runs').set('authorization', cut.auth)).body.items;
      expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('Could not be queued') });

      const sweepProfile = await created(
        cut,
        '/profiles',
        profileBody(endpoint.id as string, { sweep: SAMPLE_CAPACITY_SEARCH }),
      );
      const start = await cut.http
        .post('/sweeps')
        .set('authorization', cut.auth)
        .send({ profileId: sweepProfile.id });
      expect(start.status).toBe(503);
      expect(start.body.message).toMatch(
        /^The sweep queue \(Redis\) is unavailable, so sweep \S+ was recorded as failed/,
      );
      const [sweep] = (await cut.http.get('/sweeps').set('authorization', cut.auth)).body.items;
      expect(sweep).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('Could not be queued'),
      });
    } finally {
      await cut.close();
    }
  });
});

describe('where the API listens', () => {
  it('binds to loopback by default and reports the address it really bound', async () => {
    const env = { ...api.env, PORT: 0 };
    const app = await createApp(env);
    try {
      const url = await listen(app, env);
      expect(env.HOST).toBe('127.0.0.1');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((app.getHttpServer().address() as AddressInfo).address).toBe('127.0.0.1');
    } finally {
      await app.close();
    }
  });

  it('binds where HOST says, IPv6 included', async () => {
    const env = { ...api.env, PORT: 0, HOST: '::1' };
    const app = await createApp(env);
    try {
      expect(await listen(app, env)).toMatch(/^http:\/\/\[::1\]:\d+$/);
    } finally {
      await app.close();
    }
  });
});
