import { createTestWorld, TcpProxy, waitFor, type TestWorld } from '@teapot/testing';
import { DATABASE_RETRY_AFTER_S } from '../src/errors/api-error.filter';
import { endpointBody, startApi, type RunningApi } from './api';

/** The API's database behind a proxy this test cuts: the machine's Postgres keeps running. */
describe('while Postgres does not answer', () => {
  let world: TestWorld;
  let proxy: TcpProxy;
  let api: RunningApi;

  beforeAll(async () => {
    world = await createTestWorld({ poolMax: 1 });
    const url = new URL(world.databaseUrl);
    proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(await proxy.start());
    api = await startApi({ DATABASE_URL: url.toString() }, world);
  });

  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await world?.close();
  });

  it('answers 503 with Retry-After and says the database is unavailable, then recovers', async () => {
    expect((await api.authed.get('/runs')).status).toBe(200);
    await proxy.cut();
    for (const call of [
      () => api.authed.get('/runs'),
      () => api.authed.get('/endpoints'),
      () => api.authed.post('/endpoints').send(endpointBody()),
    ]) {
      const response = await call();
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe(String(DATABASE_RETRY_AFTER_S));
      expect(response.body).toMatchObject({
        statusCode: 503,
        error: 'Service Unavailable',
        message: expect.stringMatching(/^The database is unavailable/),
      });
    }
    // one warning line per request, naming what the driver said (pg's or Prisma's), not an error with a stack
    expect(api.logs()).toMatch(/database is unavailable.*(ECONNREFUSED|Can't reach database server)/);
    expect(api.logs()).not.toMatch(/Internal server error/);
    await proxy.restore();
    await waitFor(
      'GET /runs to answer again',
      async () => (await api.authed.get('/runs')).status === 200,
      10_000,
    );
  });
});
