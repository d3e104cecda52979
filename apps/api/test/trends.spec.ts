import { HISTOGRAM_RELATIVE_ERROR, readRunRequests } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { percentile, requestMetrics } from '@teapot/measure';
import { created, endpointBody, profileBody, type RunningApi, startApi } from './api';

let api: RunningApi;
let endpointId: string;
const runIds: string[] = [];
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 2);
const from = new Date(T0).toISOString();
const to = new Date(T0 + 2 * DAY).toISOString();

async function get(query: Record<string, string | string[]>) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return api.http.get(`/trends?${params}`).set('authorization', api.auth);
}

beforeAll(async () => {
  api = await startApi();
  const endpoint = await created(
    api,
    '/endpoints',
    endpointBody({ config: { weightQuant: 'fp8', gpuCount: 1 } }),
  );
  endpointId = endpoint.id as string;
  const profile = await created(api, '/profiles', profileBody(endpointId));
  const config = await api.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } });
  for (const [i, startedAt] of [T0 + 3_600_000, T0 + 7_200_000, T0 + DAY + 60_000].entries()) {
    const result = syntheticRunResult({ requests: 10, tokensPerRequest: 40, seed: i + 1 });
    const runId = await storeMeasuredRun(
      api.prisma,
      { endpointId, profileId: profile.id as string, configId: config.id, startedAt: new Date(startedAt) },
      // The third run's client was saturated, as the measurement reports it.
      { ...result, client: { ...result.client, saturated: i === 2 } },
    );
    runIds.push(runId);
  }
}, 60_000);

afterAll(() => api?.close());

describe('GET /trends', () => {
  it('answers a daily P99 ITL over every token of the day, within the histogram error', async () => {
    const response = await get({ metric: 'itl', statistic: 'p99', bucket: 'day', from, to, endpointId });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      metric: 'itl',
      unit: 'ms',
      weighting: 'token',
      excludedSaturatedRuns: 1,
    });
    const [point] = response.body.series[0].points;
    expect(response.body.series[0].points).toHaveLength(1);
    const samples: number[] = [];
    for (const id of runIds.slice(0, 2)) {
      for (const record of await readRunRequests(api.prisma, id))
        samples.push(...requestMetrics(record).itlUs);
    }
    const exact =
      percentile(
        samples.sort((a, b) => a - b),
        0.99,
      ) / 1000;
    expect(Math.abs(point.value - exact)).toBeLessThanOrEqual(exact * HISTOGRAM_RELATIVE_ERROR + 0.0005);
    expect(point).toMatchObject({
      runs: 2,
      requests: 20,
      tokens: 800,
      configVersions: [{ endpointId, version: 1 }],
    });
  });

  it('includes client-saturated runs on request and filters by configuration fields', async () => {
    const all = await get({
      metric: 'ttft',
      statistic: 'p50',
      bucket: 'run',
      from,
      to,
      includeSaturated: 'true',
      gpuCount: '1',
    });
    expect(all.status).toBe(200);
    expect(all.body.series[0].points.map((p: { runId: string }) => p.runId)).toEqual(runIds);
    const none = await get({
      metric: 'ttft',
      statistic: 'p50',
      bucket: 'day',
      from,
      to,
      weightQuant: 'fp16',
    });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ series: [], reason: expect.stringMatching(/no measured run/) });
  });

  it.each<[string, Record<string, string>, string]>([
    ['an unknown metric', { metric: 'latency' }, 'metric'],
    ['a statistic the metric has not', { metric: 'error_rate', statistic: 'p99' }, 'statistic'],
    ['an unbounded range (no from)', { from: '' }, 'from'],
    ['a reversed range', { from: to, to: from }, 'to'],
    ['an impossible date', { from: '2026-02-30T00:00:00Z' }, 'from'],
    ['too many buckets', { bucket: 'hour', from: '1970-01-01T00:00:00Z' }, 'bucket'],
    ['an unknown group field', { groupBy: 'colour' }, 'groupBy'],
    ['a mistyped configuration value', { gpuCount: 'eight' }, 'gpuCount'],
    ['an unknown parameter', { colour: 'red' }, 'colour'],
  ])('refuses %s with a 400 naming the parameter', async (_what, change, field) => {
    const query: Record<string, string> = {
      metric: 'itl',
      statistic: 'p99',
      bucket: 'day',
      from,
      to,
      ...change,
    };
    if (query.from === '') delete query.from;
    const response = await get(query);
    expect(response.status).toBe(400);
    expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('is in the OpenAPI document with its parameters', async () => {
    const doc = (await api.http.get('/openapi.json')).body;
    const names = doc.paths['/trends'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['metric', 'statistic', 'bucket', 'from', 'groupBy', 'weightQuant']),
    );
  });
});
