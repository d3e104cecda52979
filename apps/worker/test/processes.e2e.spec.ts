import { randomUUID } from 'node:crypto';
import { readRunRequests } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedManualRun,
  seedProfile,
  waitFor,
  waitForRunToFinish,
} from '@teapot/testing';
import { WorkerProcess, createWorld, seedSimulatedEndpoint, type WorkerWorld } from './support/harness';

describe('worker processes sharing one Redis and Postgres', () => {
  let world: WorkerWorld;
  let fast: RunningSimulator;
  /** About 55 ms per token: runs last seconds, long enough to kill a worker mid-run. */
  let slow: RunningSimulator;
  let producer: RunQueueProducer;
  const workers = new Map<string, WorkerProcess>();

  const spawnWorker = async (id: string, env: Record<string, string> = {}) => {
    const worker = new WorkerProcess(
      id,
      world.workerEnv({ LOG_LEVEL: 'info', WORKER_CONCURRENCY: '2', WORKER_METRICS_PORT: '0', ...env }),
    );
    workers.set(id, worker);
    await worker.waitForLog(`worker ${id} started`);
    return worker;
  };
  const runOf = (id: string) => world.db.prisma.run.findUniqueOrThrow({ where: { id } });
  const finished = (id: string, timeoutMs?: number) => waitForRunToFinish(world, id, timeoutMs);
  const manualRun = async (endpointId: string, requests: number, outputTokens = 20) => {
    const runId = await seedManualRun(
      world,
      await seedProfile(world, endpointId, { requests, outputTokens }),
    );
    await producer.enqueueRun(runId);
    return runId;
  };
  const nothingRunning = async () =>
    expect(await world.db.prisma.run.count({ where: { status: 'running' } })).toBe(0);

  beforeAll(async () => {
    world = await createWorld();
    [fast, slow] = await Promise.all([
      startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0 }),
      startSimulator({ gpu: 'l4', model: 'llama-8b', spinUs: 0 }),
    ]);
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    await Promise.all([spawnWorker('worker-1'), spawnWorker('worker-2')]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...workers.values()].map((worker) => worker.stop('SIGKILL')));
    await closeInOrder(producer, fast, slow, world);
  });

  it('stores a refused connection as a classified error', async () => {
    const closed = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const runId = await manualRun(closed, 3);
    const row = await finished(runId);
    expect(row.status).toBe('failed');
    expect(row.errorCounts).toEqual({ connect_refused: 3 });
    expect(row.errorClass).toBe('endpoint');
  });

  it('never runs one endpoint from two workers at once', async () => {
    const endpointId = await seedSimulatedEndpoint(world, fast);
    const before = await Promise.all(['worker-1', 'worker-2'].map((id) => contention(workers.get(id)!)));
    const runIds = await Promise.all(Array.from({ length: 6 }, () => manualRun(endpointId, 4)));
    const rows = await Promise.all(runIds.map((id) => finished(id)));
    expect(rows.map((row) => row.status)).toEqual(Array(6).fill('succeeded'));
    // The endpoint's busy interval per run, from the stored records on the shared monotonic clock.
    const intervals = await Promise.all(
      rows.map(async (row) => {
        const anchorNs = BigInt(row.monotonicAnchorNs ?? 0n);
        const records = await readRunRequests(world.db, row.id);
        const starts = records.map((r) => anchorNs + BigInt(r.startUs) * 1000n);
        const ends = records.map(
          (r) => anchorNs + BigInt(r.startUs + lastOffsetUs(r.chunkOffsetsUs)) * 1000n,
        );
        return { worker: row.workerId, start: min(starts), end: max(ends) };
      }),
    );
    intervals.sort((a, b) => (a.start < b.start ? -1 : 1));
    for (let i = 1; i < intervals.length; i++)
      expect(intervals[i].start).toBeGreaterThanOrEqual(intervals[i - 1].end);
    // Both workers competed for the endpoint: each measured a run or was turned away as busy.
    const after = await Promise.all(['worker-1', 'worker-2'].map((id) => contention(workers.get(id)!)));
    expect(after[0]).toBeGreaterThan(before[0]);
    expect(after[1]).toBeGreaterThan(before[1]);
    await nothingRunning();
  }, 40_000);

  it('enqueues each slot once with two schedulers running', async () => {
    const endpointId = await seedSimulatedEndpoint(world, fast);
    const profileId = await seedProfile(world, endpointId, { intervalS: 1, requests: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    await world.db.prisma.profile.update({ where: { id: profileId }, data: { enabled: false } });
    await waitFor('the last slot to finish', async () => {
      const open = await world.db.prisma.run.count({
        where: { profileId, status: { in: ['queued', 'running'] } },
      });
      return open === 0;
    });
    const runs = await world.db.prisma.run.findMany({ where: { profileId }, orderBy: { slotKey: 'asc' } });
    const slots = runs.map((run) => Number(run.slotKey?.split('@')[1]));
    expect(runs.length).toBeGreaterThanOrEqual(4);
    // One run per slot, every slot from the first to the last, each run measured once.
    expect(new Set(slots).size).toBe(runs.length);
    expect(slots[slots.length - 1] - slots[0]).toBe((runs.length - 1) * 1_000);
    expect(runs.every((run) => run.attempts <= 1)).toBe(true);
    await nothingRunning();
  }, 30_000);

  it('finishes the run of a worker killed with SIGKILL on another worker, once', async () => {
    const endpointId = await seedSimulatedEndpoint(world, slow);
    const runId = await manualRun(endpointId, 6);
    const running = await waitFor('the run to start', async () => {
      const row = await runOf(runId);
      return row.status === 'running' ? row : null;
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const victim = workers.get(running.workerId ?? '');
    expect(victim).toBeDefined();
    expect((await victim!.stop('SIGKILL')).signal).toBe('SIGKILL');
    workers.delete(victim!.id);

    const row = await finished(runId, 40_000);
    const survivor = workers.values().next().value as WorkerProcess;
    expect(row).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      workerId: survivor.id,
      requestsSucceeded: 6,
    });
    expect(survivor.logs).toContain(
      `worker ${running.workerId} stopped mid-run; measuring it again (attempt 2)`,
    );
    expect(await world.db.prisma.run.count({ where: { endpointId } })).toBe(1);
    expect(await readRunRequests(world.db, runId)).toHaveLength(6);
    await nothingRunning();
  }, 60_000);

  it('aborts and stores the current run on SIGTERM, and exits cleanly', async () => {
    const id = `worker-term-${randomUUID().slice(0, 8)}`;
    await Promise.all([...workers.values()].map((worker) => worker.stop('SIGTERM')));
    workers.clear();
    const worker = await spawnWorker(id, { SHUTDOWN_GRACE_MS: '300', WORKER_QUEUES: 'runs' });
    const endpointId = await seedSimulatedEndpoint(world, slow);
    const served = slow.stats().groundTruthResponses;
    const runId = await manualRun(endpointId, 40, 10);
    await waitFor('the run to start', async () => (await runOf(runId)).status === 'running');
    // the third response of a 2-stream run starts once one has finished: something measured to keep
    // (its measuring thread's start and warm-up take a while on a loaded machine)
    await waitFor('a request to finish', async () => slow.stats().groundTruthResponses - served >= 3);
    const stoppedAt = Date.now();
    const exit = await worker.stop('SIGTERM');
    workers.delete(id);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    const row = await runOf(runId);
    expect(row.status).toBe('aborted');
    expect(row.error).toMatch(/shut down \(SIGTERM\)/);
    // What was measured before the abort is stored with the run.
    const records = await readRunRequests(world.db, runId);
    expect(records.length).toBeGreaterThan(0);
    expect(records.some((record) => record.outcome === 'ok')).toBe(true);
    expect(worker.logs).toContain(`worker ${id} stopped`);
    await nothingRunning();
  }, 40_000);
});

/** Runs a worker process finished plus times it found an endpoint busy, from its /metrics. */
async function contention(worker: WorkerProcess): Promise<number> {
  const port = /metrics on http:\/\/[^/\s]+:(\d+)\/metrics/.exec(worker.logs)?.[1];
  if (!port) throw new Error(`worker ${worker.id} logged no metrics port`);
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(
    /^teapot_worker_(?:runs_finished|busy_deferrals)_total\{[^}]*\} (\d+)$/gm,
  )) {
    total += Number(match[1]);
  }
  return total;
}

/** Arrival of the request's last chunk, from its start. */
function lastOffsetUs(offsets: Uint32Array): number {
  return offsets.length > 0 ? offsets[offsets.length - 1] : 0;
}

function min(values: bigint[]): bigint {
  return values.reduce((a, b) => (b < a ? b : a));
}

function max(values: bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a));
}
