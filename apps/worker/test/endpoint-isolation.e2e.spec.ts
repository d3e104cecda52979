import type { INestApplicationContext } from '@nestjs/common';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedManualRun,
  seedProfile,
  waitForRunToFinish,
} from '@teapot/testing';
import { createWorkerApp } from '../src';
import { WorkerMetrics } from '../src/metrics/worker-metrics';
import { streamingEndpoint, type LocalEndpoint } from './support/local-endpoint';
import { createWorld, seedSimulatedEndpoint, type WorkerWorld } from './support/harness';

/** An endpoint whose streams never end: a token every 100 ms, forever (never stalled, never done). */
function endlessServer(): Promise<LocalEndpoint> {
  const event = `data: ${JSON.stringify({ id: 'r', choices: [{ index: 0, delta: { content: 'a' } }] })}\n\n`;
  return streamingEndpoint((res) => {
    const timer = setInterval(() => res.write(event), 100);
    res.on('close', () => clearInterval(timer));
  });
}

describe('one endless endpoint does not hold the measuring slot for its whole timeout', () => {
  let world: WorkerWorld;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  let endless: Awaited<ReturnType<typeof endlessServer>>;
  let sim: RunningSimulator;

  beforeAll(async () => {
    world = await createWorld();
    [endless, sim] = await Promise.all([
      endlessServer(),
      startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0 }),
    ]);
    // One run at a time, as the stack measures: the endless run is what stands in the other's way.
    app = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'isolation',
        WORKER_CONCURRENCY: '1',
        RUN_BUDGET_FACTOR: '3',
        RUN_BUDGET_FLOOR_MS: '5000',
      }),
      logs: false,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(() => closeInOrder(app, producer, endless, sim, world));

  it('ends it at its time budget as an endpoint fault, and the next endpoint measures', async () => {
    const endlessEndpoint = await seedEndpoint(world, { baseUrl: endless.baseUrl, model: 'm' });
    // A two-minute request timeout: without a budget the slot would be held that long.
    const endlessProfile = await seedProfile(world, endlessEndpoint, { requests: 2, timeoutMs: 120_000 });
    // The profile's usual duration: three earlier runs of one second each.
    for (let i = 0; i < 3; i++) {
      const id = await seedManualRun(world, endlessProfile);
      await world.db.prisma.run.update({
        where: { id },
        data: { status: 'succeeded', durationUs: 1_000_000n, finishedAt: new Date() },
      });
    }
    const goodEndpoint = await seedSimulatedEndpoint(world, sim);
    const endlessRun = await seedManualRun(world, endlessProfile);
    const goodRun = await seedManualRun(world, await seedProfile(world, goodEndpoint, { requests: 2 }));
    await producer.enqueueRun(endlessRun);
    await producer.enqueueRun(goodRun);

    // Ended at its budget (5 s, the floor); its requests' own timeout would take 120 s.
    const ended = await waitForRunToFinish(world, endlessRun, 40_000);
    expect(ended).toMatchObject({ status: 'aborted', errorClass: 'endpoint' });
    expect(ended.error).toMatch(
      /^ended early: still measuring after its time budget of 5\.0 s \(3x the median 1\.0 s/,
    );
    expect(await waitForRunToFinish(world, goodRun, 30_000)).toMatchObject({ status: 'succeeded' });
    expect(
      await app.get(WorkerMetrics).valueOf('teapot_worker_runs_finished_total', { status: 'aborted' }),
    ).toBe(1);
  }, 90_000);
});
