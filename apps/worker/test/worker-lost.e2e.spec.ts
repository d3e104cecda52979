import { WORKER_DEFAULTS, RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { closeInOrder, REDIS_URL, seedManualRun, seedProfile, waitFor } from '@teapot/testing';
import { WorkerProcess, createWorld, seedSimulatedEndpoint, type WorkerWorld } from './support/harness';

/**
 * Workers SIGKILLed while measuring one run, as often as its job allows: the run ends `failed` as
 * `worker_lost`, saying in plain words that the worker died and how often, not blaming the endpoint.
 */
describe('a run whose worker dies more often than its job allows', () => {
  let world: WorkerWorld;
  /** About 55 ms per token: each attempt measures for seconds, long enough to kill its worker. */
  let slow: RunningSimulator;
  let producer: RunQueueProducer;
  const workers = new Map<string, WorkerProcess>();
  let spawned = 0;

  const spawnWorker = async () => {
    const id = `mortal-${++spawned}`;
    const worker = new WorkerProcess(
      id,
      world.workerEnv({
        LOG_LEVEL: 'info',
        WORKER_QUEUES: 'runs',
        // A dead worker's job is found stalled within about three seconds.
        WORKER_LOCK_DURATION_MS: '2000',
        WORKER_STALLED_INTERVAL_MS: '500',
        ENDPOINT_LOCK_TTL_MS: '1000',
      }),
    );
    workers.set(id, worker);
    await worker.waitForLog(`worker ${id} started`);
    return worker;
  };

  beforeAll(async () => {
    world = await createWorld();
    slow = await startSimulator({ gpu: 'l4', model: 'llama-8b', spinUs: 0 });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    await Promise.all([spawnWorker(), spawnWorker()]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([...workers.values()].map((worker) => worker.stop('SIGKILL')));
    await closeInOrder(producer, slow, world);
  });

  it('ends the run failed as worker_lost, naming how many times its worker died', async () => {
    const endpointId = await seedSimulatedEndpoint(world, slow);
    const profileId = await seedProfile(world, endpointId, { requests: 200, outputTokens: 40 });
    const runId = await seedManualRun(world, profileId);
    await producer.enqueueRun(runId);

    const deaths = WORKER_DEFAULTS.maxStalledCount + 1;
    for (let attempt = 1; attempt <= deaths; attempt++) {
      const running = await waitFor(
        `attempt ${attempt} to be measuring`,
        async () => {
          const row = await world.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
          return row.status === 'running' && row.attempts === attempt ? row : null;
        },
        30_000,
      );
      const victim = workers.get(running.workerId ?? '');
      expect(victim).toBeDefined();
      expect((await victim!.stop('SIGKILL')).signal).toBe('SIGKILL');
      workers.delete(victim!.id);
      await spawnWorker();
    }

    const row = await waitFor(
      'the run to end',
      async () => {
        const found = await world.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
        return found.status === 'running' || found.status === 'queued' ? null : found;
      },
      30_000,
    );
    expect(row).toMatchObject({ status: 'failed', errorClass: 'worker_lost', attempts: deaths });
    expect(row.error).toContain(`the worker measuring this run died ${deaths} times`);
    expect(row.error).toContain('says nothing about the endpoint');
    // Nothing was measured, so nothing is blamed on the endpoint's requests.
    expect(row.summary).toBeNull();
    expect(row.errorCounts).toEqual({});
    // Webhook subscribers hear of it with the same class.
    const event = await world.db.prisma.webhookEvent.findFirstOrThrow({ where: { type: 'run.failed' } });
    expect(event.data).toMatchObject({ runId, errorClass: 'worker_lost' });
    const logs = [...workers.values()].map((worker) => worker.logs).join('\n');
    expect(logs).toContain(`run ${runId} failed (worker_lost)`);
  }, 180_000);
});
