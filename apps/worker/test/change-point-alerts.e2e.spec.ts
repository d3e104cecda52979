import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { listChangePoints } from '@teapot/analysis';
import { QUEUE_NAMES, type ChangePointsJobData } from '@teapot/contracts';
import { ChangePointStore } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { ChangePointQueueProducer } from '@teapot/jobs';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedProfile,
  seedWebhookSubscription,
  waitFor,
} from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, type WorkerWorld } from './support/harness';

const HOUR = 3_600_000;
const FLAT = 30;
const DRIFTING = 24;

/**
 * The live bug of issue 27: one drift, extended by every new run, was announced again and again
 * (a new change point, then a step, then a drift again, each a new `changepoint.detected`). Here a
 * flat history is followed by runs whose inter-token gaps grow 3% a run, each run recomputed by the
 * real worker as it arrives; every series must be announced at most once, as the change point that
 * is still stored at the end.
 */
describe('change-point alerts: one change, one detected event however many runs refine it', () => {
  let world: WorkerWorld;
  let app: INestApplicationContext;
  let producer: ChangePointQueueProducer;
  let queue: Queue<ChangePointsJobData>;
  let endpointId: string;
  let profileId: string;
  const t0 = Date.now() - (FLAT + DRIFTING + 1) * HOUR;

  const storeRun = (i: number, gapScale: number) =>
    storeMeasuredRun(
      world.db,
      { endpointId, profileId, startedAt: new Date(t0 + i * HOUR) },
      syntheticRunResult({ requests: 10, tokensPerRequest: 20, seed: i + 1, gapScale }),
      { finishedAt: new Date(t0 + i * HOUR + 60_000) },
    );

  const recompute = async (pair = { endpointId, profileId }) => {
    await producer.enqueueChangePoints(pair, 0);
    await waitFor(
      'the change-points job to finish',
      async () => {
        const left = await queue.getJobCounts('delayed', 'waiting', 'active');
        return left.delayed + left.waiting + left.active === 0;
      },
      20_000,
    );
  };

  beforeAll(async () => {
    world = await createWorld();
    app = await createWorkerApp({
      env: world.workerEnv({ WORKER_ID: 'worker-change-point-alerts', WORKER_QUEUES: 'change-points' }),
      logs: false,
    });
    producer = new ChangePointQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    queue = world.queue<ChangePointsJobData>(QUEUE_NAMES['change-points']);
    endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1', model: 'llama-8b' });
    profileId = await seedProfile(world, endpointId, { requests: 10, outputTokens: 20 });
    await seedWebhookSubscription(world, {
      url: 'https://hooks.example.com/teapot',
      eventTypes: ['changepoint.detected', 'changepoint.updated', 'changepoint.retracted'],
    });
    for (let i = 0; i < FLAT; i++) await storeRun(i, 1);
  }, 60_000);

  afterAll(() => closeInOrder(app, producer, world));

  it('announces one drift once, by the id of the change point it keeps refining; later series join it', async () => {
    for (let k = 1; k <= DRIFTING; k++) {
      await storeRun(FLAT + k - 1, 1 + 0.03 * k);
      await recompute();
    }
    type Listed = { id: string; metric: string; statistic: string };
    const { rows: events } = await world.db.pool.query<{
      type: string;
      data: Listed & { changePoints: Listed[] };
    }>(`SELECT type, data FROM webhook_events WHERE type LIKE 'changepoint.%' ORDER BY created_at`);
    // Every series the drift shows in (throughput, ITL, TPOT, E2E and their percentiles, each crossing
    // its bar at its own run) is one change: one detected event, listing those seen together first.
    const detected = events.filter((e) => e.type === 'changepoint.detected');
    expect(detected).toHaveLength(1);
    const [event] = detected;
    expect(event.data.changePoints.length).toBeGreaterThan(1);

    // The announced change point is the one stored now (same id), refined in place since.
    const store = new ChangePointStore(world.db);
    const stored = await listChangePoints(store, { mode: 'robust', profileIds: [profileId] });
    const announced = stored.changePoints.find((c) => c.id === event.data.id);
    expect(Math.abs(announced?.magnitude ?? 0)).toBeGreaterThan(0.2);
    // ITL P99 crossed its bar in a later recomputation: stored, and part of that one change.
    const itlP99 = stored.changePoints.filter((c) => c.metric === 'itl' && c.statistic === 'p99');
    expect(itlP99).toHaveLength(1);
    expect(itlP99[0].magnitude).toBeGreaterThan(0.3);
    // Later events are about announced ids only (an early, marginal finding may be retracted and found
    // again as the drift grows: said, not silent), each far fewer than the runs that refined it.
    const later = events.filter((e) => e.type !== 'changepoint.detected');
    const announcedIds = event.data.changePoints.map((c) => c.id);
    expect(later.every((e) => announcedIds.includes(e.data.id))).toBe(true);
    for (const id of announcedIds)
      expect(later.filter((e) => e.data.id === id).length).toBeLessThan(DRIFTING / 4);
  });

  it("announces a step in a profile's capacity searches once, naming the sweeps and the change of configuration", async () => {
    const searchProfileId = await seedProfile(world, endpointId);
    const [before, after] = await Promise.all(
      (['fp16', 'fp8'] as const).map((weightQuant, i) =>
        world.db.prisma.servingConfig.create({ data: { endpointId, version: 10 + i, weightQuant } }),
      ),
    );
    const sweepIds: string[] = [];
    // 24 scheduled searches, 6 hours apart; FP8 from the 13th serves 40% more within the SLO.
    for (let i = 0; i < 24; i++) {
      const { id } = await world.db.prisma.sweep.create({
        data: {
          endpointId,
          profileId: searchProfileId,
          configId: (i < 12 ? before : after).id,
          trigger: 'schedule',
          spec: { kind: 'capacity', dimension: 'rate' },
          profileSnapshot: {},
          status: 'succeeded',
          stopReason: 'converged',
          capacity: (i < 12 ? 30 : 42) * (1 + 0.02 * Math.sin(i)),
          startedAt: new Date(t0 + i * 6 * HOUR),
        },
      });
      sweepIds.push(id);
    }
    await recompute({ endpointId, profileId: searchProfileId });
    const { rows } = await world.db.pool.query<{
      data: { metric: string; sweepId: string; runId: string | null; attribution: { summary: string } };
      links: Record<string, string>;
    }>(
      `SELECT data, links FROM webhook_events
        WHERE type = 'changepoint.detected' AND data->>'profileId' = $1`,
      [searchProfileId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ metric: 'capacity', sweepId: sweepIds[12], runId: null });
    expect(rows[0].data.attribution.summary).toMatch(/config v11 \(from v10: weightQuant fp16 -> fp8\)/);
    expect(rows[0].links.sweep).toMatch(new RegExp(`/sweeps/${sweepIds[12]}$`));
  });
});
