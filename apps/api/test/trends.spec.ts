import { STATISTICS } from '@teapot/contracts';
import { HISTOGRAM_RELATIVE_ERROR, readRunRequests } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { percentile, requestMetrics } from '@teapot/measure';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();
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
  return api.authed.get(`/trends?${params}`);
}

beforeAll(async () => {
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

  it('lists the deployments that took effect in the range on the series it falls in', async () => {
    const deployment = (data: { endpointId: string; label: string; at: number; verdict?: 'regressed' }) =>
      api.prisma.deployment.create({
        data: {
          endpointId: data.endpointId,
          label: data.label,
          version: `${data.label}-v`,
          effectiveAt: new Date(data.at),
          runsPerProfile: 1,
          profileIds: [],
          firstRunDelayS: 0,
          baselineRuns: 1,
          threshold: 0.1,
          verdict: data.verdict ?? null,
        },
      });
    const inside = await deployment({ endpointId, label: 'fp8 -> fp16', at: T0 + DAY, verdict: 'regressed' });
    const pending = await deployment({ endpointId, label: 'vllm 0.12', at: T0 + DAY + 120_000 });
    await deployment({ endpointId, label: 'after the range', at: T0 + 3 * DAY });
    const elsewhere = await created(api, '/endpoints', endpointBody());
    await deployment({ endpointId: elsewhere.id as string, label: 'no series', at: T0 + DAY });

    const response = await get({ metric: 'itl', statistic: 'p50', bucket: 'day', from, to });
    expect(response.status).toBe(200);
    expect(response.body.series.map((s: { key: unknown }) => s.key)).toEqual([{ endpoint: endpointId }]);
    expect(response.body.deployments).toEqual([
      {
        id: inside.id,
        endpointId,
        effectiveAt: new Date(T0 + DAY).toISOString(),
        label: 'fp8 -> fp16',
        version: 'fp8 -> fp16-v',
        verdict: 'regressed',
        series: [0],
      },
      expect.objectContaining({ id: pending.id, verdict: 'pending', series: [0] }),
    ]);
    // No series, no deployments to draw.
    const empty = await get({
      metric: 'itl',
      statistic: 'p50',
      bucket: 'day',
      from,
      to,
      weightQuant: 'fp16',
    });
    expect(empty.body).toMatchObject({ series: [], deployments: [] });
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

  it('answers a diagnostic metric: the mean of the runs that have it, the others left out', async () => {
    await api.prisma.run.update({
      where: { id: runIds[0] },
      data: { serverDiagnostics: { scrapes: 5, failedScrapes: 0, kvCacheUsageMax: 0.5 } },
    });
    await api.prisma.run.update({
      where: { id: runIds[1] },
      data: { serverDiagnostics: { scrapes: 5, failedScrapes: 0, kvCacheUsageMax: 0.9 } },
    });
    const response = await get({
      metric: 'kv_cache_usage_max',
      statistic: 'mean',
      bucket: 'day',
      from,
      to,
      endpointId,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ metric: 'kv_cache_usage_max', unit: 'fraction', weighting: 'run' });
    const [day0, day1] = response.body.series[0].points;
    expect(day0).toMatchObject({ runs: 2, samples: 2 });
    expect(day0.value).toBeCloseTo(0.7);
    expect(day1).toBeUndefined();
    const tail = await get({ metric: 'kv_cache_usage_max', statistic: 'p99', bucket: 'day', from, to });
    expect(tail.status).toBe(400);
    expect(JSON.stringify(tail.body)).toMatch(/statistic/);
  });

  it('is in the OpenAPI document with its parameters', async () => {
    const doc = (await api.http.get('/openapi.json')).body;
    const names = doc.paths['/trends'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['metric', 'statistic', 'bucket', 'from', 'groupBy', 'weightQuant']),
    );
    // Every entry of the statistics catalogue, in its order: a new statistic needs no API change.
    const statistic = doc.paths['/trends'].get.parameters.find(
      (p: { name: string }) => p.name === 'statistic',
    );
    expect(statistic.schema.enum).toEqual([...STATISTICS]);
  });
});
