import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import {
  FINAL_RUN_STATUSES,
  parseProfileSnapshot,
  QUEUE_NAMES,
  type AdvanceSweepJobData,
  type SweepSpec,
} from '@teapot/contracts';
import { createQueuedSweep, readRunRequests, type Run, type Sweep } from '@teapot/db';
import { advanceSweepJobId, SweepQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { REDIS_URL, seedEndpoint, seedProfile, waitFor } from '@teapot/testing';
import { createWorkerApp, SchedulerService, SweepAdvancer, slotKey } from '../src';
import { FailingProxy } from './support/failing-proxy';
import { createWorld, type WorkerWorld } from './support/harness';

const REQUESTS = 6;
const OUTPUT_TOKENS = 8;
/** An SLO every point of these small sweeps meets, so each point's figures count its requests as good. */
const LOOSE_SLO = { targets: [{ metric: 'ttft', percentile: 99, limitMs: 60_000 }] } as const;
const RATES: SweepSpec = {
  kind: 'points',
  dimension: 'rate',
  points: [2, 4, 8],
  slo: { ...LOOSE_SLO, targets: [...LOOSE_SLO.targets] },
};

describe('sweeps (in process): every point a run, one after another, resumable', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let producer: SweepQueueProducer;
  let changePoints: Queue;
  let sweepsQueue: Queue<AdvanceSweepJobData>;
  const apps: INestApplicationContext[] = [];

  async function workerApp(env: Record<string, string>, autoStart = true): Promise<INestApplicationContext> {
    const app = await createWorkerApp({
      env: world.workerEnv({ SWEEP_SWEEPER_INTERVAL_MS: '500', ...env }),
      logs: false,
      autoStart,
    });
    apps.push(app);
    return app;
  }

  async function closeApps(): Promise<void> {
    for (const app of apps.splice(0)) await app.close();
  }

  /** A sweep profile of an endpoint at `baseUrl` whose configuration has 2 GPUs at $3/GPU-hour. */
  async function sweepProfile(baseUrl: string, spec: SweepSpec, schedule: { intervalS?: number } = {}) {
    const endpointId = await seedEndpoint(world, { baseUrl, model: sim.deployment.model.name });
    await world.db.prisma.servingConfig.updateMany({
      where: { endpointId },
      data: { gpuCount: 2, usdPerGpuHour: 3 },
    });
    const profileId = await seedProfile(world, endpointId, {
      requests: REQUESTS,
      outputTokens: OUTPUT_TOKENS,
      inputTokens: 16,
      ...schedule,
    });
    return world.db.prisma.profile.update({
      where: { id: profileId },
      data: { sweep: { ...spec } as object },
    });
  }

  /** A manual sweep and its first step, queued as the API queues one. */
  async function queueSweep(profile: Awaited<ReturnType<typeof sweepProfile>>): Promise<Sweep> {
    const sweep = await createQueuedSweep(world.db.prisma, profile, 'manual');
    await producer.enqueueAdvance(sweep.id, 0);
    return sweep;
  }

  const sweepRow = (id: string) => world.db.prisma.sweep.findUniqueOrThrow({ where: { id } });
  const pointRuns = (sweepId: string): Promise<Run[]> =>
    world.db.prisma.run.findMany({ where: { sweepId }, orderBy: { sweepIndex: 'asc' } });

  function finishedSweep(id: string, timeoutMs = 60_000): Promise<Sweep> {
    return waitFor(
      `sweep ${id} to end`,
      async () => {
        const row = await sweepRow(id);
        return row.status === 'queued' || row.status === 'running' ? null : row;
      },
      timeoutMs,
    );
  }

  beforeAll(async () => {
    world = await createWorld();
    sim = await startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0, seed: 5 });
    producer = new SweepQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    changePoints = world.queue(QUEUE_NAMES['change-points']);
    sweepsQueue = world.queue<AdvanceSweepJobData>(QUEUE_NAMES.sweeps);
  });

  afterEach(closeApps);

  afterAll(async () => {
    await closeApps();
    await producer?.close();
    await sim?.close();
    await world?.close();
  });

  it('measures each listed rate as a run of its own, in order, with its figures and per-token data', async () => {
    await workerApp({ WORKER_ID: 'sweeper-points', WORKER_QUEUES: 'runs,sweeps' });
    const profile = await sweepProfile(sim.baseUrl, RATES);
    const sweep = await queueSweep(profile);

    const ended = await finishedSweep(sweep.id);
    expect(ended).toMatchObject({
      status: 'succeeded',
      stopReason: 'completed',
      error: null,
      errorClass: null,
    });
    expect(ended.startedAt).not.toBeNull();
    const runs = await pointRuns(sweep.id);
    expect(runs.map((run) => run.sweepIndex)).toEqual([0, 1, 2]);
    for (const [i, run] of runs.entries()) {
      expect(run).toMatchObject({
        status: 'succeeded',
        trigger: 'manual',
        profileId: profile.id,
        configId: sweep.configId,
        requestsSucceeded: REQUESTS,
      });
      // The profile is closed-loop: a rate point is open-loop at the point's rate, Poisson arrivals.
      const snapshot = parseProfileSnapshot(run.profileSnapshot);
      expect(snapshot.load).toEqual({ kind: 'open', ratePerS: RATES.points[i], arrival: 'poisson' });
      expect(snapshot.sweep).toEqual(RATES);
      expect(run.sweepPoint).not.toBeNull();
      // Measured one after another: each point started after the one before had ended.
      if (i > 0) expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].finishedAt!.getTime());
      const records = await readRunRequests(world.db, run.id);
      expect(records).toHaveLength(REQUESTS);
      for (const record of records) {
        const truth = sim.groundTruth(record.responseId ?? '');
        const sent = truth!.events.filter((e) => e.kind === 'content' && e.tokens > 0);
        expect(record.outputTokens).toBe(OUTPUT_TOKENS);
        expect(sent.reduce((n, e) => n + e.tokens, 0)).toBe(OUTPUT_TOKENS);
      }
    }
    // Sweep points differ in load: no change-point series is recomputed over them.
    expect(await changePoints.count()).toBe(0);
  }, 90_000);

  it("queues its pair's change points once a capacity search found a capacity: a value of the capacity series", async () => {
    await workerApp({ WORKER_ID: 'searcher', WORKER_QUEUES: 'runs,sweeps' });
    // A loose SLO every load meets: the search ends at its highest load after a few points.
    const search: SweepSpec = {
      kind: 'capacity',
      dimension: 'concurrency',
      slo: { ...LOOSE_SLO, targets: [...LOOSE_SLO.targets] },
      lowest: 1,
      highest: 2,
      tolerance: 0.5,
      maxPoints: 2,
    };
    const profile = await sweepProfile(sim.baseUrl, search);
    const sweep = await finishedSweep((await queueSweep(profile)).id);
    expect(sweep).toMatchObject({ status: 'succeeded', capacity: 2 });
    const jobs = await changePoints.getJobs(['delayed', 'waiting']);
    expect(jobs.map((job) => job.data)).toEqual([{ endpointId: sweep.endpointId, profileId: profile.id }]);
    await changePoints.obliterate({ force: true });
  }, 60_000);

  it('ends failed (endpoint_failed) when a point fails, keeping the points before it', async () => {
    await workerApp({ WORKER_ID: 'sweeper-fault', WORKER_QUEUES: 'runs,sweeps' });
    const proxy = new FailingProxy(new URL(sim.baseUrl), REQUESTS);
    try {
      const profile = await sweepProfile(await proxy.start(), RATES);
      const sweep = await queueSweep(profile);
      const ended = await finishedSweep(sweep.id);
      const runs = await pointRuns(sweep.id);
      expect(runs.map((run) => [run.sweepIndex, run.status])).toEqual([
        [0, 'succeeded'],
        [1, 'failed'],
      ]);
      expect(ended).toMatchObject({
        status: 'failed',
        stopReason: 'endpoint_failed',
        errorClass: 'endpoint',
        capacity: null,
      });
      expect(ended.error).toContain(`point 1 (run ${runs[1].id}) failed`);
      expect(runs[0].sweepPoint).not.toBeNull();
      expect(runs[1].errorCounts).toMatchObject({ http_status: REQUESTS });
      expect(await readRunRequests(world.db, runs[0].id)).toHaveLength(REQUESTS);
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('resumes a sweep whose advance was lost with its worker, measuring no point twice', async () => {
    // A worker that measures but takes no sweep steps, and a script that takes the first step by hand.
    await workerApp({ WORKER_ID: 'measures-only', WORKER_QUEUES: 'runs' });
    const driver = await workerApp({ WORKER_ID: 'driver', WORKER_QUEUES: 'sweeps' }, false);
    const profile = await sweepProfile(sim.baseUrl, RATES);
    const sweep = await createQueuedSweep(world.db.prisma, profile, 'manual');
    expect(await driver.get(SweepAdvancer).advance(sweep.id)).toMatchObject({ step: 'measuring', index: 0 });
    const [first] = await waitFor(
      'point 0 to end',
      async () => {
        const runs = await pointRuns(sweep.id);
        return runs.length === 1 && (FINAL_RUN_STATUSES as readonly string[]).includes(runs[0].status)
          ? runs
          : null;
      },
      30_000,
    );
    expect(first.status).toBe('succeeded');

    // The point's end queued the next step; the worker dies before it is taken and the job is lost.
    await closeApps();
    const lost = await sweepsQueue.getJob(advanceSweepJobId(sweep.id, 1));
    expect(lost).toBeDefined();
    await lost!.remove();
    expect(await sweepsQueue.count()).toBe(0);

    // A new worker: its sweeper finds the sweep idle with point 0 ended, and the sweep goes on from there.
    await workerApp({ WORKER_ID: 'resumer', WORKER_QUEUES: 'runs,sweeps' });
    const ended = await finishedSweep(sweep.id);
    expect(ended).toMatchObject({ status: 'succeeded', stopReason: 'completed' });
    const runs = await pointRuns(sweep.id);
    expect(runs.map((run) => run.sweepIndex)).toEqual([0, 1, 2]);
    expect(runs[0].id).toBe(first.id);
    const perPoint = await world.db.prisma.run.groupBy({
      by: ['sweepIndex'],
      where: { sweepId: sweep.id },
      _count: { _all: true },
    });
    expect(perPoint.map((p) => p._count._all)).toEqual([1, 1, 1]);

    // Steps taken again after the end change nothing.
    const again = await Promise.all([0, 1].map(() => apps[0].get(SweepAdvancer).advance(sweep.id)));
    expect(again.map((a) => a.step)).toEqual(['finished', 'finished']);
    expect(await world.db.prisma.run.count({ where: { sweepId: sweep.id } })).toBe(3);
  }, 90_000);

  it('takes each step once when advanced many times at once', async () => {
    const driver = await workerApp({ WORKER_ID: 'racer', WORKER_QUEUES: 'sweeps' }, false);
    const profile = await sweepProfile(sim.baseUrl, RATES);
    const sweep = await createQueuedSweep(world.db.prisma, profile, 'manual');
    const advancer = driver.get(SweepAdvancer);
    const steps = await Promise.all([1, 2, 3, 4].map(() => advancer.advance(sweep.id)));
    // One point 0 run, whichever advance inserted it; the rest found it queued.
    const runIds = new Set(steps.map((step) => step.runId));
    expect(runIds.size).toBe(1);
    expect(await world.db.prisma.run.count({ where: { sweepId: sweep.id } })).toBe(1);
    expect((await sweepRow(sweep.id)).status).toBe('running');
  });

  it("queues one sweep (not a run) for a sweep profile's slot, its first step at the due time", async () => {
    const clock = {
      ms: Date.now(),
      now() {
        return this.ms;
      },
    };
    const app = await createWorkerApp({
      env: world.workerEnv({ WORKER_ID: 'scheduler', WORKER_QUEUES: 'schedule', SCHEDULER_TICK_MS: '1000' }),
      clock,
      logs: false,
      autoStart: false,
    });
    apps.push(app);
    const profile = await sweepProfile('http://127.0.0.1:9/v1', RATES, { intervalS: 60 });
    const slot = Math.ceil((profile.updatedAt.getTime() + 1) / 60_000) * 60_000;
    clock.ms = slot + 5;
    const scheduler = app.get(SchedulerService);
    const reports = await Promise.all([scheduler.tick(), scheduler.tick()]);
    await scheduler.tick();
    expect(reports.some((r) => r.ok && r.enqueued === 1)).toBe(true);

    const sweeps = await world.db.prisma.sweep.findMany({ where: { profileId: profile.id } });
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({
      trigger: 'schedule',
      status: 'queued',
      slotKey: slotKey(profile.id, slot),
      spec: RATES,
    });
    expect(parseProfileSnapshot(sweeps[0].profileSnapshot).sweep).toEqual(RATES);
    expect(await world.db.prisma.run.count({ where: { profileId: profile.id } })).toBe(0);
    const job = await sweepsQueue.getJob(advanceSweepJobId(sweeps[0].id, 0));
    expect(job?.data).toEqual({ sweepId: sweeps[0].id });
    expect(['waiting', 'delayed']).toContain(await job?.getState());
    await job?.remove();
  });
});
