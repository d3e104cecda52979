import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  RUN_JOB_OPTIONS,
  RunQueueProducer,
  SWEEP_JOB_OPTIONS,
  SweepQueueProducer,
  advanceSweepJobId,
  createRedis,
  queueHealth,
} from './index';
import { JOB_NAMES, QUEUE_NAMES, type RunJobData } from '@teapot/contracts';
import { waitFor } from '@teapot/testing';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RunQueueProducer against real Redis', () => {
  const prefix = `teapot-test-${randomUUID()}`;
  let connection: Redis;
  let producer: RunQueueProducer;
  let queue: Queue<RunJobData>;

  beforeAll(() => {
    connection = createRedis(REDIS_URL);
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix });
    queue = new Queue<RunJobData>(QUEUE_NAMES.runs, { connection, prefix });
  });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await producer.close();
    await connection.quit();
  });

  it('enqueues a run job with the shared options, keyed by the run id', async () => {
    const runId = randomUUID();
    const jobId = await producer.enqueueRun(runId);
    expect(jobId).toBe(runId);
    const job = await queue.getJob(jobId);
    expect(job?.name).toBe(JOB_NAMES.run);
    expect(job?.data).toEqual({ runId });
    expect(job?.opts.attempts).toBe(RUN_JOB_OPTIONS.attempts);
    expect(job?.opts.backoff).toEqual(RUN_JOB_OPTIONS.backoff);
    expect(await job?.getState()).toBe('waiting');
  });

  it('ignores a second job with the same id (one job per schedule slot)', async () => {
    const slotKey = `${randomUUID()}@1767225600000`;
    const first = await producer.enqueueRun(randomUUID(), { jobId: slotKey });
    const second = await producer.enqueueRun(randomUUID(), { jobId: slotKey });
    expect(second).toBe(first);
    const job = await queue.getJob(slotKey);
    const bulk = await producer.enqueueRuns([{ runId: randomUUID(), jobId: slotKey }]);
    expect(bulk).toEqual([slotKey]);
    expect((await queue.getJob(slotKey))?.data).toEqual(job?.data);
  });

  it('delays a job and enqueues many in one call', async () => {
    const delayed = await producer.enqueueRun(randomUUID(), { delay: 60_000 });
    expect(await (await queue.getJob(delayed))?.getState()).toBe('delayed');
    const runIds = Array.from({ length: 50 }, () => randomUUID());
    const ids = await producer.enqueueRuns(runIds.map((runId) => ({ runId })));
    expect(ids).toEqual(runIds);
  });

  it('reports queue health by state, and a worker sees the jobs under the same prefix', async () => {
    const before = await queueHealth(queue);
    expect(before.queue).toBe(QUEUE_NAMES.runs);
    expect(before.delayed).toBe(1);
    expect(before.waiting).toBe(52);

    const seen: string[] = [];
    const workerConnection = createRedis(REDIS_URL);
    const worker = new Worker<RunJobData>(
      QUEUE_NAMES.runs,
      async (job) => {
        seen.push(job.data.runId);
      },
      { connection: workerConnection, prefix, concurrency: 10 },
    );
    try {
      await waitFor('52 completed jobs', async () => (await queueHealth(queue)).completed === 52, 10_000, 50);
    } finally {
      await worker.close();
      await workerConnection.quit();
    }
    expect(seen).toHaveLength(52);
    const after = await queueHealth(queue);
    expect(after).toMatchObject({ waiting: 0, active: 0, delayed: 1, completed: 52, failed: 0 });
  });
});

describe('SweepQueueProducer against real Redis', () => {
  const prefix = `teapot-test-${randomUUID()}`;
  let producer: SweepQueueProducer;

  beforeAll(() => {
    producer = new SweepQueueProducer({ redis: REDIS_URL, prefix });
  });

  afterAll(async () => {
    await producer.queue.obliterate({ force: true });
    await producer.close();
  });

  it('names one advance job per sweep and number of ended points, so repeats collapse', async () => {
    const sweepId = randomUUID();
    const first = await producer.enqueueAdvance(sweepId, 2);
    expect(first).toBe(advanceSweepJobId(sweepId, 2));
    expect(await producer.enqueueAdvance(sweepId, 2)).toBe(first);
    await producer.enqueueAdvance(sweepId, 3);
    const jobs = await producer.queue.getJobs(['waiting']);
    expect(jobs.map((job) => job.id).sort()).toEqual([first, advanceSweepJobId(sweepId, 3)].sort());
    expect(jobs.every((job) => job.name === JOB_NAMES['advance-sweep'] && job.data.sweepId === sweepId)).toBe(
      true,
    );
    expect(jobs[0].opts.attempts).toBe(SWEEP_JOB_OPTIONS.attempts);
  });

  it('delays a scheduled sweep’s first advance to its due time', async () => {
    const runAtMs = Date.now() + 60_000;
    const jobId = await producer.enqueueAdvance(randomUUID(), 0, { runAtMs });
    const job = await producer.queue.getJob(jobId);
    expect(await job?.getState()).toBe('delayed');
    expect(Math.abs((job?.timestamp ?? 0) + (job?.opts.delay ?? 0) - runAtMs)).toBeLessThan(5);
  });
});
