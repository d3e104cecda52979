import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { listChangePoints } from '@teapot/analysis';
import { QUEUE_NAMES, type ChangePointsJobData } from '@teapot/contracts';
import { ChangePointStore } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { ChangePointQueueProducer, RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import {
  closeInOrder,
  REDIS_URL,
  seedWebhookSubscription,
  seedManualRun,
  seedProfile,
  waitFor,
  waitForRunToFinish,
} from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, seedSimulatedEndpoint, type WorkerWorld } from './support/harness';

const HOUR = 3_600_000;
const STORED = 29;
const STEP = 15;

describe('change-points queue: change points recomputed as runs arrive', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let app: INestApplicationContext;
  let runs: RunQueueProducer;
  let changePoints: ChangePointQueueProducer;
  let queue: Queue<ChangePointsJobData>;
  let endpointId: string;
  let profileId: string;
  const runIds: string[] = [];

  beforeAll(async () => {
    world = await createWorld();
    sim = await startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0, seed: 5 });
    app = await createWorkerApp({
      env: world.workerEnv({ WORKER_ID: 'worker-change-points', WORKER_QUEUES: 'runs,change-points' }),
      logs: false,
    });
    runs = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    changePoints = new ChangePointQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    queue = world.queue<ChangePointsJobData>(QUEUE_NAMES['change-points']);
    endpointId = await seedSimulatedEndpoint(world, sim);
    profileId = await seedProfile(world, endpointId, { requests: 10, outputTokens: 20 });
    await seedWebhookSubscription(world, {
      url: 'https://hooks.example.com/teapot',
      eventTypes: ['changepoint.detected'],
    });
    // History written by the real run writer: ITL three times slower from run 15 on.
    const t0 = Date.now() - (STORED + 1) * HOUR;
    for (let i = 0; i < STORED; i++) {
      const result = syntheticRunResult({
        requests: 10,
        tokensPerRequest: 20,
        seed: i + 1,
        gapScale: i < STEP ? 1 : 3,
      });
      const runId = await storeMeasuredRun(
        world.db,
        { endpointId, profileId, startedAt: new Date(t0 + i * HOUR) },
        result,
        { finishedAt: new Date(t0 + i * HOUR + 60_000) },
      );
      runIds.push(runId);
    }
  }, 60_000);

  afterAll(() => closeInOrder(app, runs, changePoints, sim, world));

  it('a measured run queues its pair, and the change-points worker stores the step of the series', async () => {
    const runId = await seedManualRun(world, profileId);
    await runs.enqueueRun(runId);
    expect((await waitForRunToFinish(world, runId)).status).toBe('succeeded');
    const found = await waitFor(
      'the robust P99 ITL step to be stored',
      async () => {
        const list = await listChangePoints(new ChangePointStore(world.db), {
          metric: 'itl',
          statistic: 'p99',
          mode: 'robust',
        });
        return list.changePoints.length > 0 ? list.changePoints : null;
      },
      30_000,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ endpointId, profileId, kind: 'step', runId: runIds[STEP] });
    expect(found[0].magnitude).toBeGreaterThan(1);
    // Announced once, as a webhook event written with it (the scheduled series saw no deployment).
    // One event for the change, listing every series it shows in (ITL P99 among them).
    const events = await world.db.pool.query<{
      data: {
        id: string;
        kind: string;
        changePoints: Array<{ id: string; metric: string; kind: string }>;
        attribution: { explained: boolean; summary: string };
      };
      deliveries: number;
    }>(
      `SELECT e.data, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM webhook_events e WHERE e.type = 'changepoint.detected'`,
    );
    const announced = events.rows.filter((row) => row.data.changePoints.some((c) => c.id === found[0].id));
    expect(announced).toHaveLength(1);
    expect(announced[0].deliveries).toBe(1);
    expect(announced[0].data.changePoints).toContainEqual(
      expect.objectContaining({ id: found[0].id, kind: 'step', metric: 'itl' }),
    );
    // No configuration version or deployment recorded around it: the alert says so.
    expect(announced[0].data.attribution).toMatchObject({
      explained: false,
      summary: 'no recorded change: unexplained',
    });
    expect(events.rows.every((row) => (row.data as unknown as { mode: string }).mode === 'robust')).toBe(
      true,
    );
  });

  it('announces no change point whose runs follow a deployment', async () => {
    await world.db.pool.query('DELETE FROM change_points');
    await world.db.pool.query('DELETE FROM webhook_events');
    await world.db.prisma.run.update({ where: { id: runIds[STEP - 1] }, data: { trigger: 'deployment' } });
    await changePoints.enqueueChangePoints({ endpointId, profileId }, 0);
    await waitFor('the step to be stored again', async () => {
      const list = await listChangePoints(new ChangePointStore(world.db), {
        metric: 'itl',
        statistic: 'p99',
        mode: 'robust',
      });
      return list.changePoints.length > 0;
    });
    const { rows } = await world.db.pool.query(
      "SELECT 1 FROM webhook_events WHERE type = 'changepoint.detected'",
    );
    expect(rows).toEqual([]);
    await world.db.prisma.run.update({ where: { id: runIds[STEP - 1] }, data: { trigger: 'schedule' } });
  });

  it('names the configuration version and the deployment the change coincides with', async () => {
    await world.db.pool.query('DELETE FROM change_points');
    await world.db.pool.query('DELETE FROM webhook_events');
    const config = (version: number, weightQuant: string) =>
      world.db.prisma.servingConfig.create({ data: { endpointId, version, weightQuant, engine: 'vllm' } });
    const [fp16, fp8] = [await config(2, 'fp16'), await config(3, 'fp8')];
    await world.db.prisma.run.updateMany({
      where: { id: { in: runIds.slice(0, STEP) } },
      data: { configId: fp16.id },
    });
    await world.db.prisma.run.updateMany({
      where: { id: { in: runIds.slice(STEP) } },
      data: { configId: fp8.id },
    });
    const [before, after] = await Promise.all(
      [runIds[STEP - 1], runIds[STEP]].map((id) => world.db.prisma.run.findUniqueOrThrow({ where: { id } })),
    );
    await world.db.prisma.deployment.create({
      data: {
        endpointId,
        label: 'moved to FP8',
        effectiveAt: new Date((before.startedAt!.getTime() + after.startedAt!.getTime()) / 2),
        runsPerProfile: 1,
        profileIds: [profileId],
        firstRunDelayS: 0,
        baselineRuns: 3,
        threshold: 0.1,
      },
    });
    await changePoints.enqueueChangePoints({ endpointId, profileId }, 0);
    const event = await waitFor('the change to be announced again', async () => {
      const { rows } = await world.db.pool.query<{ data: { attribution: Record<string, unknown> } }>(
        "SELECT data FROM webhook_events WHERE type = 'changepoint.detected'",
      );
      return rows[0] ?? null;
    });
    expect(event.data.attribution).toMatchObject({
      configBefore: 2,
      configAfter: 3,
      configChanges: [{ field: 'weightQuant', before: 'fp16', after: 'fp8' }],
      deployments: [expect.objectContaining({ label: 'moved to FP8' })],
      explained: true,
      summary: "coincides with config v3 (from v2: weightQuant fp16 -> fp8), deployment 'moved to FP8'",
    });
  });

  it('a burst of runs makes one job per pair', async () => {
    for (let i = 0; i < 5; i++) await changePoints.enqueueChangePoints({ endpointId, profileId }, 1_000);
    const counts = await queue.getJobCounts('delayed', 'waiting', 'active');
    expect(counts.delayed + counts.waiting + counts.active).toBe(1);
    await waitFor(
      'the job to finish',
      async () => {
        const left = await queue.getJobCounts('delayed', 'waiting', 'active');
        return left.delayed + left.waiting + left.active === 0;
      },
      20_000,
    );
    const list = await listChangePoints(new ChangePointStore(world.db), {
      metric: 'itl',
      statistic: 'p99',
      mode: 'robust',
    });
    expect(list.changePoints.map((c) => c.runId)).toEqual([runIds[STEP]]);
  });
});
