import { SAMPLE_CAPACITY_SEARCH } from '@teapot/contracts/testing';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { advanceSweepJobId, SweepQueueProducer } from '@teapot/jobs';
import { created, endpointBody, profileBody, startApiForFile } from './api';

/*
 * Capacity over time: finished capacity searches stored as the worker ends them, read through
 * GET /trends (metric=capacity / cost_per_mtok) and judged by POST /comparisons/sweeps.
 */
const api = startApiForFile();
let endpointId: string;
let profileId: string;
const configs: Record<string, string> = {};
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 2);

async function finishedSweep(
  config: string,
  day: number,
  capacity: number | null,
  cost: number | null = null,
): Promise<string> {
  const sweep = await api.prisma.sweep.create({
    data: {
      endpointId,
      profileId,
      configId: configs[config],
      trigger: 'schedule',
      spec: { kind: 'capacity', dimension: 'rate' },
      profileSnapshot: {},
      status: 'succeeded',
      stopReason: capacity === null ? 'below_lowest' : 'converged',
      capacity,
      costPerMtokAtCapacity: cost,
      startedAt: new Date(T0 + day * DAY + 3_600_000),
    },
  });
  return sweep.id;
}

const fp16Sweeps: string[] = [];
const fp8Sweeps: string[] = [];

beforeAll(async () => {
  endpointId = (await created(api, '/endpoints', endpointBody({ config: { weightQuant: 'fp16' } })))
    .id as string;
  configs.fp16 = (await api.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } })).id;
  configs.fp8 = (await created(api, `/endpoints/${endpointId}/configs`, { weightQuant: 'fp8' })).id as string;
  profileId = (
    await api.prisma.profile.create({ data: { name: 'capacity', endpointId, workload: {}, load: {} } })
  ).id;
  // Three repeats a configuration: fp16 near 30 req/s, then fp8 near 60 (run-to-run spread ~3%).
  for (const [day, capacity, cost] of [
    [0, 30.1, 0.8],
    [1, 29.2, 0.82],
    [2, 30.8, 0.78],
  ]) {
    fp16Sweeps.push(await finishedSweep('fp16', day, capacity, cost));
  }
  for (const [day, capacity, cost] of [
    [3, 59.5, 0.4],
    [4, 61.2, 0.39],
    [5, 60.4, 0.4],
  ]) {
    fp8Sweeps.push(await finishedSweep('fp8', day, capacity, cost));
  }
}, 60_000);

const range = { from: new Date(T0).toISOString(), to: new Date(T0 + 7 * DAY).toISOString() };

describe('GET /trends?metric=capacity', () => {
  it('trends capacity at SLO per configuration, one sample per finished search, with the deployments', async () => {
    const response = await api.authed
      .get('/trends')
      .query({ metric: 'capacity', statistic: 'p50', bucket: 'day', groupBy: 'weightQuant', ...range })
      .expect(200);
    expect(response.body).toMatchObject({
      metric: 'capacity',
      unit: 'req/s',
      weighting: 'sweep',
      deployments: [],
    });
    expect(
      response.body.series.map((s: { key: object; points: Array<{ value: number }> }) => [
        s.key,
        s.points.map((p) => p.value),
      ]),
    ).toEqual([
      [{ weightQuant: 'fp16', dimension: 'rate' }, [30.1, 29.2, 30.8]],
      [{ weightQuant: 'fp8', dimension: 'rate' }, [59.5, 61.2, 60.4]],
    ]);
  });

  it('trends the cost per million output tokens, and refuses a statistic sweeps do not offer', async () => {
    const cost = await api.authed
      .get('/trends')
      .query({ metric: 'cost_per_mtok', statistic: 'mean', bucket: 'week', ...range })
      .expect(200);
    expect(cost.body.unit).toBe('USD/Mtok');
    expect(cost.body.series[0].points[0].value).toBeCloseTo((0.8 + 0.82 + 0.78 + 0.4 + 0.39 + 0.4) / 6, 9);
    const bad = await api.authed
      .get('/trends')
      .query({ metric: 'capacity', statistic: 'p99', bucket: 'day', ...range })
      .expect(400);
    expect(bad.body.details[0]).toMatchObject({
      field: 'statistic',
      problem: expect.stringContaining('p50, mean'),
    });
  });
});

describe('POST /comparisons/sweeps', () => {
  const compare = (body: object) => api.authed.post('/comparisons/sweeps').send(body);

  it('finds FP8 serves twice the traffic at half the cost, with intervals across the repeats', async () => {
    const response = await compare({
      baseline: { ...range, config: { weightQuant: ['fp16'] } },
      candidate: { ...range, config: { weightQuant: ['fp8'] } },
    }).expect(200);
    expect(response.body.verdict).toBe('improved');
    const [capacity, cost] = response.body.metrics;
    expect(capacity).toMatchObject({ metric: 'capacity', verdict: 'improved' });
    expect(capacity.baseline.values).toEqual([30.1, 29.2, 30.8]);
    expect(capacity.change).toBeGreaterThan(0.95);
    expect(capacity.changeCi[0]).toBeGreaterThan(0.85);
    expect(capacity.changeCi[1]).toBeGreaterThan(capacity.change);
    expect(capacity.changeCi[1]).toBeLessThan(1.2);
    expect(cost).toMatchObject({ metric: 'cost_per_mtok', verdict: 'improved' });
    expect(cost.change).toBeCloseTo(0.397 / 0.8 - 1, 1);
  });

  it('calls a repeat of the same configuration unchanged, not a regression', async () => {
    const response = await compare({
      baseline: { sweepIds: fp16Sweeps.slice(0, 2) },
      candidate: { sweepIds: fp16Sweeps.slice(1) },
      metrics: ['capacity'],
    }).expect(200);
    expect(response.body.metrics[0].verdict).not.toBe('regressed');
  });

  it('calls a side whose every search missed the SLO at its lowest load a regression', async () => {
    const missed = [await finishedSweep('fp8', 6, null), await finishedSweep('fp8', 6, null)];
    const response = await compare({
      baseline: { sweepIds: fp8Sweeps },
      candidate: { sweepIds: missed },
      metrics: ['capacity'],
    }).expect(200);
    expect(response.body.metrics[0]).toMatchObject({
      verdict: 'regressed',
      change: null,
      candidate: { sweeps: 2, values: [], belowLowest: 2 },
      reason: expect.stringContaining('lowest load'),
    });
    await api.prisma.sweep.deleteMany({ where: { id: { in: missed } } });
  });

  it('refuses bad input naming the field', async () => {
    const side = { from: range.from };
    const cases: Array<[object, string]> = [
      [{ baseline: {}, candidate: side }, 'baseline.from'],
      [{ baseline: side, candidate: side, metrics: ['itl'] }, 'metrics'],
      [{ baseline: side, candidate: side, threshold: 2 }, 'threshold'],
      [{ baseline: side, candidate: { ...side, sweepIds: ['x'] } }, 'candidate.sweepIds'],
      [{ baseline: side, candidate: { ...side, config: { weightQuant: [3] } } }, 'candidate.weightQuant'],
    ];
    for (const [body, field] of cases) {
      const response = await compare(body).expect(400);
      expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });
});

describe('GET /runs?sweepId', () => {
  it("lists one sweep's point runs", async () => {
    const runId = await storeMeasuredRun(
      api.prisma,
      { endpointId, profileId, startedAt: new Date(T0), sweep: { id: fp16Sweeps[0], index: 0 } },
      syntheticRunResult({ requests: 2, tokensPerRequest: 4, seed: 1 }),
    );
    await storeMeasuredRun(
      api.prisma,
      { endpointId, profileId, startedAt: new Date(T0 + 1000) },
      syntheticRunResult({ requests: 2, tokensPerRequest: 4, seed: 2 }),
    );
    const listed = await api.authed.get('/runs').query({ sweepId: fp16Sweeps[0] }).expect(200);
    expect(listed.body.items.map((r: { id: string; sweepIndex: number }) => [r.id, r.sweepIndex])).toEqual([
      [runId, 0],
    ]);
    await api.authed.get('/runs').query({ sweepId: 'nope' }).expect(400);
  });
});

describe('POST /deployments with a capacity-search profile', () => {
  it('queues one capacity search a round, tied to the deployment, its first step after the delay', async () => {
    const endpoint = (await created(api, '/endpoints', endpointBody())).id as string;
    const search = await created(api, '/profiles', profileBody(endpoint, { sweep: SAMPLE_CAPACITY_SEARCH }));
    const before = Date.now();
    const deployment = await created(api, '/deployments', {
      endpointId: endpoint,
      label: 'fp8 weights',
      settings: { runsPerProfile: 2, firstRunDelayS: 60 },
    });
    expect(deployment.runs).toEqual([]);
    expect(deployment.sweeps).toEqual([
      { id: expect.any(String), profileId: search.id, status: 'queued' },
      { id: expect.any(String), profileId: search.id, status: 'queued' },
    ]);
    const queue = api.app.get(SweepQueueProducer).queue;
    for (const sweep of deployment.sweeps as Array<{ id: string }>) {
      const row = await api.prisma.sweep.findUniqueOrThrow({ where: { id: sweep.id } });
      expect(row).toMatchObject({ deploymentId: deployment.id, trigger: 'deployment', profileId: search.id });
      const job = await queue.getJob(advanceSweepJobId(sweep.id, 0));
      expect(await job?.getState()).toBe('delayed');
      expect((job?.timestamp ?? 0) + (job?.opts.delay ?? 0)).toBeGreaterThanOrEqual(before + 59_000);
    }
  });
});
