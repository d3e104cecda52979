import { decryptHeaders } from '@teapot/config';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { created, endpointBody, startApiForFile } from './api';

const TOKEN = 'metrics-token-5e1f0c9a';

const api = startApiForFile();

describe("an endpoint's metricsUrl and metricsHeaders", () => {
  it('are stored (headers encrypted, names shown masked, values never returned), replaced and cleared', async () => {
    const create = await api.authed.post('/endpoints').send(
      endpointBody({
        metricsUrl: 'http://127.0.0.1:8000/metrics',
        metricsHeaders: { Authorization: `Bearer ${TOKEN}` },
      }),
    );
    expect(create.status).toBe(201);
    expect(create.body).toMatchObject({
      metricsUrl: 'http://127.0.0.1:8000/metrics',
      metricsHeaders: { authorization: '****' },
    });
    expect(create.text).not.toContain(TOKEN);
    const id = create.body.id as string;
    const stored = await api.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    expect(Buffer.from(stored.metricsHeadersEnc!).includes(Buffer.from(TOKEN))).toBe(false);
    expect(decryptHeaders(stored.metricsHeadersEnc!, api.env.TEAPOT_SECRET_KEY)).toEqual({
      authorization: `Bearer ${TOKEN}`,
    });

    const read = await api.authed.get(`/endpoints/${id}`);
    expect(read.body.metricsHeaders).toEqual({ authorization: '****' });
    expect(read.text).not.toContain(TOKEN);

    const moved = await api.authed
      .patch(`/endpoints/${id}`)
      .send({ metricsUrl: 'http://127.0.0.1:9000/metrics' });
    expect(moved.body).toMatchObject({
      metricsUrl: 'http://127.0.0.1:9000/metrics',
      metricsHeaders: { authorization: '****' },
    });

    const cleared = await api.authed.patch(`/endpoints/${id}`).send({ metricsUrl: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ metricsUrl: null, metricsHeaders: {} });
    const after = await api.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    expect([after.metricsUrl, after.metricsHeadersEnc, after.metricsHeaderNames]).toEqual([null, null, []]);

    const plain = await created(api, '/endpoints', endpointBody());
    expect(plain).toMatchObject({ metricsUrl: null, metricsHeaders: {} });
  });

  it.each([
    [
      'http://169.254.169.254/metrics',
      /169\.254\.169\.254 is a link-local address; teapot never connects to one/,
    ],
    ['http://metadata.google.internal/metrics', /cloud metadata service/],
    ['http://user:pw@10.0.0.7:8000/metrics', /credentials.*Put them in metricsHeaders/],
    ['ftp://10.0.0.7/metrics', /must be http:\/\/ or https:\/\//],
  ])('refuses %s with a 400 naming metricsUrl, by the endpoint URL policy', async (metricsUrl, problem) => {
    const response = await api.authed.post('/endpoints').send(endpointBody({ metricsUrl }));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ field: 'metricsUrl', problem: expect.stringMatching(problem) }]);
    const existing = await created<{ id: string }>(api, '/endpoints', endpointBody());
    const patch = await api.authed.patch(`/endpoints/${existing.id}`).send({ metricsUrl });
    expect(patch.status).toBe(400);
    expect(patch.body.details[0].field).toBe('metricsUrl');
  });

  it('refuses a metricsUrl that is no string', async () => {
    const response = await api.authed.post('/endpoints').send(endpointBody({ metricsUrl: 42 }));
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.details)).toContain('metricsUrl');
  });
});

describe('GET /runs/{id}/server-metrics', () => {
  it('returns the scraped series over the run and the run shows the diagnostics', async () => {
    const endpoint = await created<{ id: string }>(api, '/endpoints', endpointBody());
    const serverMetrics = {
      diagnostics: { scrapes: 3, failedScrapes: 0, runningMean: 4, runningMax: 4, preemptions: 2 },
      offsetsMs: [-2.5, 1000.5, 2100],
      series: { gauges: { running: [0, 4, 0] }, counters: { preemptions: [5, 6, 1] }, histograms: {} },
    };
    const runId = await storeMeasuredRun(
      api.prisma,
      { endpointId: endpoint.id, startedAt: new Date() },
      syntheticRunResult({ requests: 4, tokensPerRequest: 8, seed: 3 }),
      { serverMetrics },
    );
    const response = await api.authed.get(`/runs/${runId}/server-metrics`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      runId,
      offsetsMs: [-2.5, 1000.5, 2100],
      gauges: { running: [0, 4, 0] },
      counters: { preemptions: [5, 6, 1] },
      increases: { preemptions: [0, 1, 2] },
      histograms: {},
      diagnostics: serverMetrics.diagnostics,
    });
    expect((await api.authed.get(`/runs/${runId}`)).body.serverDiagnostics).toEqual(
      serverMetrics.diagnostics,
    );

    const bare = await storeMeasuredRun(
      api.prisma,
      { endpointId: endpoint.id, startedAt: new Date() },
      syntheticRunResult({ requests: 2, tokensPerRequest: 8, seed: 4 }),
    );
    expect((await api.authed.get(`/runs/${bare}/server-metrics`)).body).toMatchObject({
      offsetsMs: [],
      gauges: {},
      diagnostics: null,
    });
    expect((await api.authed.get(`/runs/${bare}`)).body.serverDiagnostics).toBeNull();
    expect((await api.authed.get('/runs/00000000-0000-4000-8000-000000000000/server-metrics')).status).toBe(
      404,
    );
  });
});
