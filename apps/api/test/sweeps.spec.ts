import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { costPerMillionOutputTokens, type SweepPoint } from '@teapot/capacity';
import { JOB_NAMES, SLO_PRESETS } from '@teapot/contracts';
import { SAMPLE_CAPACITY_SEARCH } from '@teapot/contracts/testing';
import { persistRunResult, SweepStore } from '@teapot/db';
import { syntheticRunResult } from '@teapot/db/testing';
import { advanceSweepJobId, SweepQueueProducer } from '@teapot/jobs';
import { created, endpointBody, profileBody, startApiForFile, uploadAsset } from './api';

const SHIPPED_DATASET = join(
  __dirname,
  '..',
  '..',
  '..',
  'packages',
  'measure',
  'datasets',
  'teapot-chats.sharegpt.jsonl',
);

const RATES = { kind: 'points', dimension: 'rate', points: [1, 2, 4, 8] };

const api = startApiForFile();
let store: SweepStore;
let endpointId: string;

beforeAll(async () => {
  store = new SweepStore(api.prisma);
  endpointId = (
    await created(api, '/endpoints', endpointBody({ config: { gpuCount: 2, usdPerGpuHour: 2.5 } }))
  ).id as string;
});

const sweepProfile = (overrides: Record<string, unknown> = {}, endpoint = endpointId) =>
  created<{ id: string; endpointId: string; sweep: unknown }>(
    api,
    '/profiles',
    profileBody(endpoint, { sweep: SAMPLE_CAPACITY_SEARCH, ...overrides }),
  );

async function refused(body: Record<string, unknown>): Promise<Array<{ field: string; problem: string }>> {
  const response = await api.authed.post('/profiles').send(profileBody(endpointId, body));
  expect(response.status).toBe(400);
  return response.body.details;
}

describe('sweep profiles', () => {
  it('store the spec as parsed: defaults filled, the preset expanded', async () => {
    const profile = await sweepProfile();
    expect(profile.sweep).toEqual({
      ...SAMPLE_CAPACITY_SEARCH,
      slo: SLO_PRESETS['mlperf-llama3.1-8b-server'],
      tolerance: 0.05,
      maxPoints: 8,
    });
    const read = await api.authed.get(`/profiles/${profile.id}`).expect(200);
    expect(read.body.sweep).toEqual(profile.sweep);
    // null clears it: a single-load profile again.
    const cleared = await api.authed.patch(`/profiles/${profile.id}`).send({ sweep: null }).expect(200);
    expect(cleared.body.sweep).toBeNull();
    expect((await created(api, '/profiles', profileBody(endpointId))).sweep).toBeNull();
  });

  it('accept every example the OpenAPI document gives for POST /profiles', async () => {
    const doc = (await api.http.get('/openapi.json').expect(200)).body;
    const examples = doc.paths['/profiles'].post.requestBody.content['application/json'].examples;
    expect(Object.keys(examples)).toEqual([
      'single',
      'capacity',
      'multiTurn',
      'sharedPrefix',
      'dataset',
      'uploadedTokenizer',
      'trace',
      'points',
    ]);
    // the dataset example names the dataset teapot ships
    await api.http
      .post('/assets?kind=dataset&format=sharegpt')
      .set('authorization', api.auth)
      .set('content-type', 'application/x-ndjson')
      .send(readFileSync(SHIPPED_DATASET));
    // and the trace example the trace POST /assets example uploads
    const trace = doc.paths['/assets'].post.requestBody.content['application/x-ndjson'].examples.trace.value;
    await uploadAsset(api, trace, 'kind=trace').expect(201);
    // uploadedTokenizer names the reader's own upload by hash (assets.spec checks its shape)
    const { uploadedTokenizer: _, ...creatable } = examples as Record<
      string,
      { value: Record<string, unknown> }
    >;
    for (const { value } of Object.values(creatable)) {
      await created(api, '/profiles', { ...value, endpointId, name: `${value.name}-${Math.random()}` });
    }
  });

  it.each([
    [
      'unsorted points',
      { ...RATES, points: [1, 4, 2] },
      'sweep.points[2]',
      'points must be strictly ascending: 2 follows 4',
    ],
    [
      'a duplicate point',
      { ...RATES, points: [1, 2, 2] },
      'sweep.points[2]',
      'points must be strictly ascending: 2 follows 2',
    ],
    ['a zero point', { ...RATES, points: [0, 1] }, 'sweep.points[0]', 'must be above 0'],
    ['a negative point', { ...RATES, points: [-1, 1] }, 'sweep.points[0]', 'must be above 0'],
    ['no points', { ...RATES, points: [] }, 'sweep.points', 'must have at least 1 items'],
    [
      'an unknown preset',
      { ...SAMPLE_CAPACITY_SEARCH, slo: { preset: 'x' } },
      'sweep.slo.preset',
      'unknown SLO preset "x"; use one of mlperf-llama3.1-8b-server',
    ],
    [
      'an SLO without a target',
      { ...SAMPLE_CAPACITY_SEARCH, slo: {} },
      'sweep.slo.targets',
      'an SLO needs at least one target or a preset',
    ],
    [
      'a percentile no summary keeps',
      { ...SAMPLE_CAPACITY_SEARCH, slo: { targets: [{ metric: 'ttft', percentile: 98, limitMs: 1 }] } },
      'sweep.slo.targets[0].percentile',
      'must be one of 50, 90, 95, 99, 99.9',
    ],
    [
      'highest under lowest',
      { ...SAMPLE_CAPACITY_SEARCH, lowest: 8, highest: 4 },
      'sweep.highest',
      'highest must be above lowest',
    ],
    [
      'an unknown kind',
      { ...RATES, kind: 'grid' },
      'sweep.kind',
      "Invalid discriminator value. Expected 'points' | 'capacity'",
    ],
    ['a missing dimension', { kind: 'points', points: [1] }, 'sweep.dimension', 'is required'],
    ['an unknown field', { ...RATES, step: 2 }, 'sweep.step', 'is not an allowed field'],
    [
      'a fractional maxPoints',
      { ...SAMPLE_CAPACITY_SEARCH, maxPoints: 2.5 },
      'sweep.maxPoints',
      'must be a whole number',
    ],
    ['an array', [RATES], 'sweep', 'must be an object'],
  ])('refuse %s with a 400 naming the field', async (_what, sweep, field, problem) => {
    expect(await refused({ sweep })).toEqual([{ field, problem: expect.stringContaining(problem) }]);
  });

  it('refuse a scheduled sweep longer than its interval, naming the computed duration', async () => {
    // 8 points at 1 req/s x 200 requests = 200 s each, + 120 s timeout + 5 s set-up: 2,600 s.
    const details = await refused({
      sweep: SAMPLE_CAPACITY_SEARCH,
      requestCount: 200,
      scheduleIntervalS: 1800,
    });
    expect(details).toEqual([
      {
        field: 'sweep',
        problem: expect.stringContaining(
          "takes up to 2600 s (8 points: measuring windows 1600 s + warm-up 0 s + the last requests' timeout 120 s and 5 s of set-up per point), longer than the schedule's 1800 s between slots",
        ),
      },
    ]);
    // The same sweep fits an hourly schedule, or a 2-hourly cron; durationS shortens every window.
    await sweepProfile({ requestCount: 200, scheduleIntervalS: 3600 });
    await sweepProfile({ requestCount: 200, scheduleCron: '0 */2 * * *' });
    const shorter = await refused({
      sweep: SAMPLE_CAPACITY_SEARCH,
      requestCount: 200,
      durationS: 60,
      scheduleCron: '*/20 * * * *',
    });
    expect(shorter[0].problem).toContain('takes up to 1480 s');
    // Warm-up: 10 requests at the points' in-flight cap of 5 = 2 rounds of up to 120 s per point.
    const warm = await refused({
      sweep: RATES,
      load: { kind: 'open', ratePerS: 1, arrival: 'poisson', maxConcurrency: 5 },
      warmupRequests: 10,
      requestCount: 100,
      scheduleIntervalS: 600,
    });
    expect(warm[0].problem).toContain(
      'takes up to 1648 s (4 points: measuring windows 188 s + warm-up 960 s',
    );
  });

  it('need durationS when scheduled concurrency points have no other bound', async () => {
    const concurrency = { kind: 'points', dimension: 'concurrency', points: [1, 4, 16] };
    expect(await refused({ sweep: concurrency, scheduleIntervalS: 86_400 })).toEqual([
      {
        field: 'durationS',
        problem: expect.stringContaining('is required for a scheduled sweep of concurrency points'),
      },
    ]);
    await sweepProfile({ sweep: concurrency, scheduleIntervalS: 86_400, durationS: 60 });
    // Unscheduled, it only runs when asked: no slot to overrun.
    await sweepProfile({ sweep: concurrency });
  });

  it('check a PATCH against the profile as it will be, changing nothing when refused', async () => {
    const profile = await sweepProfile({ requestCount: 200 });
    const response = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ scheduleIntervalS: 600 })
      .expect(400);
    expect(response.body.details[0]).toMatchObject({
      field: 'sweep',
      problem: expect.stringContaining('2600 s'),
    });
    const read = await api.authed.get(`/profiles/${profile.id}`).expect(200);
    expect(read.body.scheduleIntervalS).toBeNull();
    const patched = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ sweep: { ...RATES, points: [4, 8] } });
    expect(patched.body.sweep).toEqual({ ...RATES, points: [4, 8] });
  });
});

describe('serving configurations', () => {
  it('take a price per GPU-hour, positive, finite and sane; null is no price', async () => {
    const path = `/endpoints/${endpointId}/configs`;
    expect((await created(api, path, { usdPerGpuHour: 3.2 })).usdPerGpuHour).toBe(3.2);
    expect((await created(api, path, { usdPerGpuHour: null })).usdPerGpuHour).toBeNull();
    expect((await created(api, path, { engine: 'vllm' })).usdPerGpuHour).toBeNull();
    for (const bad of [0, -1, 1e6, '2.5', true]) {
      const response = await api.authed.post(path).send({ usdPerGpuHour: bad }).expect(400);
      expect(response.body.details[0].field).toBe('usdPerGpuHour');
    }
    const versions = await api.authed.get(path).expect(200);
    expect(versions.body.items.map((c: { usdPerGpuHour: number | null }) => c.usdPerGpuHour)).toEqual([
      null,
      null,
      3.2,
      2.5,
    ]);
  });
});

describe('POST /sweeps', () => {
  it('queues a sweep of a sweep profile and its first advance-sweep job', async () => {
    const profile = await sweepProfile();
    const response = await api.authed.post('/sweeps').send({ profileId: profile.id }).expect(202);
    expect(response.body).toMatchObject({
      profileId: profile.id,
      endpointId,
      trigger: 'manual',
      status: 'queued',
      spec: profile.sweep,
      dimension: 'rate',
      unit: 'req/s',
      slo: SLO_PRESETS['mlperf-llama3.1-8b-server'],
      stopReason: null,
      capacity: null,
      bracket: { passed: null, failed: null },
      points: [],
      frontier: [],
    });
    const row = await api.prisma.sweep.findUniqueOrThrow({ where: { id: response.body.id } });
    expect(row.configId).not.toBeNull();
    const job = await api.app.get(SweepQueueProducer).queue.getJob(advanceSweepJobId(row.id, 0));
    expect(job?.name).toBe(JOB_NAMES['advance-sweep']);
    expect(job?.data).toEqual({ sweepId: row.id });
  });

  it('refuses a single-load profile, and POST /runs refuses a sweep profile, each naming profileId', async () => {
    const single = await created(api, '/profiles', profileBody(endpointId));
    const notSweep = await api.authed.post('/sweeps').send({ profileId: single.id }).expect(400);
    expect(notSweep.body.details).toEqual([
      { field: 'profileId', problem: expect.stringContaining('single-load profile (no sweep set)') },
    ]);
    const profile = await sweepProfile();
    const notRun = await api.authed.post('/runs').send({ profileId: profile.id }).expect(400);
    expect(notRun.body.details).toEqual([
      { field: 'profileId', problem: expect.stringContaining('start a sweep of it with POST /sweeps') },
    ]);
    expect(await api.prisma.run.count({ where: { profileId: profile.id } })).toBe(0);
    const missing = await api.authed
      .post('/sweeps')
      .send({ profileId: '00000000-0000-4000-8000-000000000000' })
      .expect(404);
    expect(missing.body.details[0].field).toBe('profileId');
  });
});

describe('GET /sweeps', () => {
  it('lists newest first, a page at a time, filtered by endpoint, profile and status', async () => {
    const other = (await created(api, '/endpoints', endpointBody())).id as string;
    const [mine, theirs] = [await sweepProfile(), await sweepProfile({}, other)];
    const ids: string[] = [];
    for (const profile of [mine, mine, theirs, mine]) {
      ids.push((await api.authed.post('/sweeps').send({ profileId: profile.id }).expect(202)).body.id);
    }
    await store.finish(ids[1], { status: 'succeeded', stopReason: 'converged', capacity: 3 });

    const list = async (query: string) => (await api.authed.get(`/sweeps?${query}`).expect(200)).body;
    const first = await list(`profileId=${mine.id}&limit=2`);
    expect(first.items.map((s: { id: string }) => s.id)).toEqual([ids[3], ids[1]]);
    const second = await list(`profileId=${mine.id}&limit=2&cursor=${first.nextCursor}`);
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect((await list(`endpointId=${other}`)).items.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    const succeeded = await list(`profileId=${mine.id}&status=succeeded`);
    expect(succeeded.items).toEqual([
      expect.objectContaining({ id: ids[1], status: 'succeeded', stopReason: 'converged', capacity: 3 }),
    ]);
    expect((await list(`profileId=${mine.id}&status=queued&status=running`)).items).toHaveLength(2);
    const bad = await api.authed.get('/sweeps?status=done').expect(400);
    expect(bad.body.details[0].field).toBe('status');
  });
});

describe('GET /sweeps/:id', () => {
  /** Point `index` measured at `rate` and stored by the real run writer with its figures. */
  async function measuredPoint(
    sweepId: string,
    index: number,
    rate: number,
    figures: object,
  ): Promise<string> {
    const sweep = await api.prisma.sweep.findUniqueOrThrow({ where: { id: sweepId } });
    const snapshot = {
      ...(sweep.profileSnapshot as object),
      load: { kind: 'open', ratePerS: rate, arrival: 'poisson' },
    };
    const { runId } = await store.insertPointRun({ sweepId, index, snapshot });
    await api.prisma.run.update({ where: { id: runId }, data: { status: 'running', startedAt: new Date() } });
    await persistRunResult(
      api.prisma,
      runId,
      syntheticRunResult({ requests: 4, tokensPerRequest: 8, seed: index + 1 }),
      {
        sweepPoint: figures,
      },
    );
    return runId;
  }

  /** A point's figures as the worker stores them (capacity's SweepPoint), on a 2-GPU $2.5/GPU-hour config. */
  const figures = (load: number, perUser: number, perGpu: number, met: boolean): SweepPoint => ({
    dimension: 'rate',
    load,
    requests: 300,
    succeeded: 300,
    failed: 0,
    achievedRps: met ? load * 0.99 : load * 0.7,
    outputTokensPerS: perGpu * 2,
    meanInFlight: (perGpu * 2) / perUser,
    targets: [
      { metric: 'ttft', percentile: 99, limitMs: 2000, valueMs: met ? 400 : 2600, met },
      { metric: 'tpot', percentile: 99, limitMs: 100, valueMs: 40, met: true },
    ],
    goodShare: met ? 0.995 : 0.6,
    goodputRps: load * (met ? 0.995 : 0.42),
    met,
    missed: met ? [] : ['ttft p99 2600 ms > 2000 ms', 'over-saturated: completions fell behind arrivals'],
    saturation: {
      saturated: !met,
      reason: met ? null : 'completions fell behind arrivals',
      ttftGrowth: met ? 1.02 : 2.4,
      completionRatio: met ? 0.99 : 0.7,
      sendLagMs: 0.4,
    },
    tokensPerSPerUser: perUser,
    tokensPerSPerGpu: perGpu,
    gpus: 2,
    costPerMillionOutputTokensUsd: costPerMillionOutputTokens(perGpu * 2, { gpus: 2, usdPerGpuHour: 2.5 }),
  });

  it('returns the points in measuring order with their figures, the frontier and the outcome', async () => {
    const profile = await sweepProfile();
    const sweepId = (await api.authed.post('/sweeps').send({ profileId: profile.id }).expect(202)).body
      .id as string;
    await store.start(sweepId);
    // Measured as a search does: 1, then 16 (fails), then 4, then 8; 16 is over-saturated and off the frontier.
    const plan: Array<[number, number, number, boolean]> = [
      [1, 95, 40, true],
      [16, 10, 300, false],
      [4, 80, 150, true],
      [8, 60, 310, true],
    ];
    const runIds: string[] = [];
    for (const [index, [rate, perUser, perGpu, ok]] of plan.entries()) {
      runIds.push(await measuredPoint(sweepId, index, rate, figures(rate, perUser, perGpu, ok)));
    }
    const queuedPoint = await store.insertPointRun({
      sweepId,
      index: 4,
      snapshot: { load: { kind: 'open', ratePerS: 12, arrival: 'poisson' } },
    });
    await store.finish(sweepId, {
      status: 'succeeded',
      stopReason: 'converged',
      capacity: 8,
      bracketPassed: 8,
      bracketFailed: 16,
      costPerMtokAtCapacity: 4.48,
    });

    const sweep = (await api.authed.get(`/sweeps/${sweepId}`).expect(200)).body;
    expect(sweep).toMatchObject({
      status: 'succeeded',
      stopReason: 'converged',
      capacity: 8,
      unit: 'req/s',
      bracket: { passed: 8, failed: 16 },
      costPerMillionOutputTokensUsdAtCapacity: 4.48,
      error: null,
      errorClass: null,
    });
    expect(
      sweep.points.map((p: { index: number; runId: string; offered: number }) => [
        p.index,
        p.runId,
        p.offered,
      ]),
    ).toEqual([
      [0, runIds[0], 1],
      [1, runIds[1], 16],
      [2, runIds[2], 4],
      [3, runIds[3], 8],
      [4, queuedPoint.runId, 12],
    ]);
    // The stored figures come back whole; a point still queued has none.
    expect(sweep.points[1]).toMatchObject({ runStatus: 'succeeded', onFrontier: false, error: null });
    expect(sweep.points.slice(0, 4).map((p: { figures: unknown }) => p.figures)).toEqual(
      plan.map(([rate, perUser, perGpu, ok]) => figures(rate, perUser, perGpu, ok)),
    );
    expect(sweep.points[3].figures.costPerMillionOutputTokensUsd).toBeCloseTo(
      (2 * 2.5 * 1e6) / 3600 / 620,
      9,
    );
    expect(sweep.points[4]).toMatchObject({ runStatus: 'queued', figures: null, onFrontier: false });
    // Point 1 (10 tok/s per user at 300 per GPU) is beaten by point 3 (60 at 310) on both; the queued
    // point has no figures, so it is on no frontier.
    expect(sweep.frontier).toEqual([0, 2, 3]);
    expect(sweep.points.map((p: { onFrontier: boolean }) => p.onFrontier)).toEqual([
      true,
      false,
      true,
      true,
      false,
    ]);

    // Each point's run names its sweep, alone and in the run list.
    const run = (await api.authed.get(`/runs/${runIds[2]}`).expect(200)).body;
    expect(run).toMatchObject({ sweepId, sweepIndex: 2 });
    const runs = (await api.authed.get(`/runs?profileId=${profile.id}`).expect(200)).body.items;
    expect(runs.map((r: { sweepIndex: number }) => r.sweepIndex)).toEqual([4, 3, 2, 1, 0]);
    expect(new Set(runs.map((r: { sweepId: string }) => r.sweepId))).toEqual(new Set([sweepId]));
    await api.authed.get('/sweeps/00000000-0000-4000-8000-000000000000').expect(404);
  });
});
