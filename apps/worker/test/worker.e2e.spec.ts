import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetStore, readRunRequests } from '@teapot/db';
import { FINAL_RUN_STATUSES, QUEUE_NAMES, type RunJobData } from '@teapot/contracts';
import { RunQueueProducer, createRedis } from '@teapot/jobs';
import { CHUNK_KIND, parseConversations, type RunSummary } from '@teapot/measure';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { MetricsService, RetentionService, SchedulerService, createWorkerApp } from '../src';
import { WorkerMetrics } from '../src/metrics/worker-metrics';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedManualRun,
  seedProfile,
  TcpProxy,
  waitFor,
  waitForRunToFinish,
} from '@teapot/testing';
import { createWorld, seedSimulatedEndpoint, type WorkerWorld } from './support/harness';

const DATASET = readFileSync(
  join(__dirname, '..', '..', '..', 'packages', 'measure', 'datasets', 'teapot-chats.sharegpt.jsonl'),
);

describe('worker (in process): schedule -> measure -> store', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  let queue: Queue<RunJobData>;

  const run = (id: string) => world.db.prisma.run.findUniqueOrThrow({ where: { id } });
  const finished = (id: string, timeoutMs?: number) => waitForRunToFinish(world, id, timeoutMs);

  beforeAll(async () => {
    world = await createWorld();
    sim = await startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0, seed: 3 });
    app = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'worker-in-process',
        WORKER_CONCURRENCY: '4',
        WORKER_METRICS_PORT: '0',
      }),
      logs: false,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    queue = world.queue<RunJobData>(QUEUE_NAMES.runs);
  });

  afterAll(() => closeInOrder(app, producer, sim, world));

  it('runs a profile every 2 s and stores per-token data that matches what the simulator sent', async () => {
    const endpointId = await seedSimulatedEndpoint(world, sim);
    const profileId = await seedProfile(world, endpointId, { intervalS: 2, requests: 10, outputTokens: 20 });
    const runs = await waitFor(
      'two scheduled runs to finish',
      async () => {
        const rows = await world.db.prisma.run.findMany({
          where: { profileId, status: { in: [...FINAL_RUN_STATUSES] } },
          orderBy: { queuedAt: 'asc' },
        });
        return rows.length >= 2 ? rows : null;
      },
      25_000,
    );
    await world.db.prisma.profile.update({ where: { id: profileId }, data: { enabled: false } });

    const config = await world.db.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } });
    const slots = runs.map((row) => Number(row.slotKey?.split('@')[1]));
    expect(slots[1] - slots[0]).toBeGreaterThanOrEqual(2_000);
    expect(slots[1] % 2_000).toBe(0);
    for (const row of runs.slice(0, 2)) {
      expect(row).toMatchObject({
        status: 'succeeded',
        trigger: 'schedule',
        attempts: 1,
        workerId: 'worker-in-process',
        configId: config.id,
        requestsSucceeded: 10,
        requestsFailed: 0,
      });
      const records = await readRunRequests(world.db, row.id);
      expect(records).toHaveLength(10);
      const anchorNs = BigInt(row.monotonicAnchorNs ?? 0n);
      const delaysUs: number[] = [];
      const sinceWriteStartUs: number[] = [];
      for (const record of records) {
        const truth = sim.groundTruth(record.responseId ?? '');
        expect(truth).toBeDefined();
        const sent = truth!.events.filter((e) => e.kind === 'content' && e.tokens > 0);
        const got = [...record.chunkKinds.keys()].filter((i) => record.chunkKinds[i] === CHUNK_KIND.content);
        // Token counts exact: per chunk, in total, and as the server reported.
        expect(got.map((i) => record.chunkTokens[i])).toEqual(sent.map((e) => e.tokens));
        expect(record.outputTokens).toBe(20);
        expect(sent.reduce((n, e) => n + e.tokens, 0)).toBe(20);
        // Timings: each chunk arrived after the server wrote it, and soon after.
        const startNs = anchorNs + BigInt(record.startUs) * 1000n;
        got.forEach((chunk, k) => {
          const arrivedNs = startNs + BigInt(record.chunkOffsetsUs[chunk]) * 1000n;
          delaysUs.push(Number(arrivedNs - sent[k].writtenNs) / 1000);
          sinceWriteStartUs.push(Number(arrivedNs - sent[k].writeStartNs) / 1000);
        });
      }
      delaysUs.sort((a, b) => a - b);
      // Never before the write began (the run is measured on its own thread, which may read the bytes
      // before the simulator's thread notes the time after its write); whole microseconds: 2 us of rounding.
      expect(Math.min(...sinceWriteStartUs)).toBeGreaterThanOrEqual(-2);
      // Tolerances for a busy shared machine (the measurement benchmark holds the tight bounds).
      expect(delaysUs[Math.floor(delaysUs.length / 2)]).toBeLessThan(20_000);
      expect(delaysUs[delaysUs.length - 1]).toBeLessThan(200_000);
    }
  }, 40_000);

  // A refused connection is covered with a worker process (processes.e2e.spec.ts): under jest, the
  // measurement client misses the cross-realm ECONNREFUSED error and reports a timeout instead.
  it('stores endpoint faults as classified errors and keeps serving', async () => {
    const fault = async (name: string, baseUrl: string, headers?: Record<string, string>) => {
      const endpointId = await seedEndpoint(world, {
        name,
        baseUrl,
        model: sim.deployment.model.name,
        headers,
      });
      const profileId = await seedProfile(world, endpointId, {
        requests: 3,
        stallTimeoutMs: 500,
        timeoutMs: 5_000,
      });
      const runId = await seedManualRun(world, profileId);
      await producer.enqueueRun(runId);
      return runId;
    };
    const cases = {
      'http 500': await fault('fault-500', sim.baseUrl, { 'x-teapot-fault': '500' }),
      stall: await fault('fault-stall', sim.baseUrl, { 'x-teapot-fault': 'stall' }),
      malformed: await fault('fault-malformed', sim.baseUrl, { 'x-teapot-fault': 'malformed' }),
      'connection reset': await fault('fault-refuse', sim.baseUrl, { 'x-teapot-fault': 'refuse' }),
    };
    const expected: Record<keyof typeof cases, string> = {
      'http 500': 'http_status',
      stall: 'stream_stalled',
      malformed: 'malformed_stream',
      'connection reset': 'connect_error',
    };
    for (const [name, runId] of Object.entries(cases) as Array<[keyof typeof cases, string]>) {
      const row = await finished(runId);
      expect({ name, status: row.status }).toEqual({ name, status: 'failed' });
      expect(row.errorCounts).toMatchObject({ [expected[name]]: 3 });
      expect(row.error).toContain(expected[name]);
      const records = await readRunRequests(world.db, runId);
      expect(records.map((r) => r.error?.kind)).toEqual([expected[name], expected[name], expected[name]]);
    }
    // Still serving: a healthy endpoint's run succeeds after all that.
    const healthy = await seedSimulatedEndpoint(world, sim);
    const runId = await seedManualRun(world, await seedProfile(world, healthy, { requests: 2 }));
    await producer.enqueueRun(runId);
    expect((await finished(runId)).status).toBe('succeeded');
  }, 40_000);

  it('fails the job of a deleted run once, without retries', async () => {
    const jobId = await producer.enqueueRun('0b7d8f1e-4c55-4a43-9a3e-4f8e9b5a0c01');
    const job = await waitFor('the job to fail', async () => {
      const found = await queue.getJob(jobId);
      return found && (await found.getState()) === 'failed' ? found : null;
    });
    expect(job.failedReason).toMatch(/no longer exists/);
    expect(job.attemptsMade).toBe(1);
  });

  it('waits for a busy endpoint, and skips a scheduled slot that cannot start before the next one', async () => {
    const endpointId = await seedSimulatedEndpoint(world, sim);
    const lockKey = `${world.prefix}:teapot:endpoint-lock:${endpointId}`;
    const redis = createRedis(REDIS_URL);
    try {
      await redis.set(lockKey, 'another-worker/some-run', 'PX', 60_000);
      const manual = await seedManualRun(world, await seedProfile(world, endpointId, { requests: 2 }));
      await producer.enqueueRun(manual);
      const scheduledProfile = await seedProfile(world, endpointId, { intervalS: 1, requests: 2 });
      const skipped = await waitFor('a scheduled run to be skipped', () =>
        world.db.prisma.run.findFirst({ where: { profileId: scheduledProfile, status: 'aborted' } }),
      );
      // Skipped while deferring (busy) or on the deferred attempt (past the deadline): both say why.
      expect(skipped.error).toMatch(/^skipped: (endpoint busy|could not start) .*next slot at /);
      expect(await app.get(WorkerMetrics).valueOf('teapot_worker_busy_deferrals_total')).toBeGreaterThan(0);
      expect(skipped.startedAt).toBeNull();
      expect((await run(manual)).status).toBe('queued');
      await world.db.prisma.profile.update({ where: { id: scheduledProfile }, data: { enabled: false } });
      await redis.del(lockKey);
      expect((await finished(manual)).status).toBe('succeeded');
    } finally {
      await redis.quit();
    }
  }, 30_000);

  /** A manual run of `requests` requests on a fresh endpoint, enqueued and finished. */
  const measuredRun = async (requests: number, headers?: Record<string, string>) => {
    const endpointId = await seedEndpoint(world, {
      baseUrl: sim.baseUrl,
      model: sim.deployment.model.name,
      headers,
    });
    const runId = await seedManualRun(world, await seedProfile(world, endpointId, { requests }));
    await producer.enqueueRun(runId);
    return finished(runId);
  };

  it('reports queue and run counts in Prometheus format', async () => {
    const metrics = app.get(MetricsService);
    const before = await metrics.health();
    const finishedFailed = await app
      .get(WorkerMetrics)
      .valueOf('teapot_worker_runs_finished_total', { status: 'failed' });
    expect((await measuredRun(2)).status).toBe('succeeded');
    expect((await measuredRun(1, { 'x-teapot-fault': '500' })).status).toBe('failed');
    const jobId = await producer.enqueueRun('5d2c6f0a-1b3e-4c7d-8e9f-0a1b2c3d4e5f');
    await waitFor('the job of a missing run to fail', async () => (await queue.getJob(jobId))?.isFailed());

    const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
    const failedJobs = before.queue.failed + 1;
    expect(text).toMatch(
      new RegExp(`^teapot_queue_jobs\\{queue="runs",state="failed"\\} ${failedJobs}$`, 'm'),
    );
    // Other tests' scheduled slots may still finish meanwhile: only failed runs are this test's alone.
    expect(text).toMatch(/^teapot_runs\{status="succeeded"\} [1-9]\d*$/m);
    expect(text).toMatch(
      new RegExp(`^teapot_runs\\{status="failed"\\} ${(before.runsByStatus.failed ?? 0) + 1}$`, 'm'),
    );
    expect(text).toMatch(
      new RegExp(
        `^teapot_worker_runs_finished_total\\{worker="worker-in-process",status="failed"\\} ${finishedFailed + 1}$`,
        'm',
      ),
    );
    const health = await metrics.health();
    expect(health.queue.failed).toBe(failedJobs);
    expect(health.runsByStatus.failed).toBe((before.runsByStatus.failed ?? 0) + 1);
  }, 30_000);

  it('drops raw timings past retention and keeps the summaries', async () => {
    const measured = await measuredRun(3);
    expect(measured.status).toBe('succeeded');
    const before = await world.db.prisma.runRequest.count({ where: { rawDroppedAt: null } });
    expect(before).toBeGreaterThanOrEqual(3);
    const { dropped } = await app.get(RetentionService).dropOlderThan(new Date(Date.now() + 60_000));
    expect(dropped.requests).toBe(before);
    expect(await world.db.prisma.runRequest.count({ where: { chunkOffsetsUs: { not: null } } })).toBe(0);
    expect(await world.db.prisma.run.count({ where: { status: 'succeeded', itlP99Ms: null } })).toBe(0);
    expect((await run(measured.id)).itlP99Ms).toBe(measured.itlP99Ms);
  }, 30_000);

  it('keeps a result measured while the database is away and stores it when it is back', async () => {
    const url = new URL(world.databaseUrl);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(await proxy.start());
    // Its own queue, so only this worker (whose database is behind the proxy) takes the run.
    const prefix = `${world.prefix}:outage`;
    const outage = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'worker-db-outage',
        DATABASE_URL: url.toString(),
        TEAPOT_REDIS_PREFIX: prefix,
        WORKER_QUEUES: 'runs',
      }),
      logs: false,
    });
    // WORKER_QUEUES=runs: the process has the runs module and no scheduler or retention at all.
    expect(() => outage.get(SchedulerService)).toThrow();
    expect(() => outage.get(RetentionService)).toThrow();
    const outageProducer = new RunQueueProducer({ redis: REDIS_URL, prefix });
    // Slow enough (L4) that the database can be cut while the run measures.
    const slow = await startSimulator({ gpu: 'l4', model: 'llama-8b', spinUs: 0 });
    try {
      const endpointId = await seedSimulatedEndpoint(world, slow);
      const runId = await seedManualRun(
        world,
        await seedProfile(world, endpointId, { requests: 4, outputTokens: 20 }),
      );
      await outageProducer.enqueueRun(runId);
      await waitFor('the run to start', async () => (await run(runId)).status === 'running', 10_000, 20);
      await proxy.cut();
      await waitFor(
        'a failed write',
        async () => (await outage.get(WorkerMetrics).valueOf('teapot_worker_persist_retries_total')) > 0,
        15_000,
      );
      await proxy.restore();
      const row = await finished(runId);
      expect(row.status).toBe('succeeded');
      expect(row.workerId).toBe('worker-db-outage');
      expect(row.attempts).toBe(1);
      expect(await readRunRequests(world.db, runId)).toHaveLength(4);
    } finally {
      await slow.close();
      await outageProducer.close();
      await outage.close();
      await proxy.close();
    }
  }, 40_000);

  it('carries on after Redis goes away and comes back', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    const prefix = `${world.prefix}:redis-outage`;
    const redisUrl = `redis://127.0.0.1:${await proxy.start()}`;
    const worker = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'worker-redis-outage',
        REDIS_URL: redisUrl,
        TEAPOT_REDIS_PREFIX: prefix,
      }),
      logs: false,
    });
    const outageProducer = new RunQueueProducer({ redis: REDIS_URL, prefix });
    try {
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await proxy.restore();
      const endpointId = await seedSimulatedEndpoint(world, sim);
      const runId = await seedManualRun(world, await seedProfile(world, endpointId, { requests: 2 }));
      await outageProducer.enqueueRun(runId);
      const row = await finished(runId);
      expect(row.status).toBe('succeeded');
      expect(row.workerId).toBe('worker-redis-outage');
    } finally {
      await outageProducer.close();
      await worker.close();
      await proxy.close();
    }
  }, 30_000);

  describe('session workloads: a stored dataset -> sessions -> per-turn records', () => {
    async function measured(
      workload: Record<string, unknown>,
      requests: number,
      load?: Record<string, unknown>,
    ) {
      const endpointId = await seedSimulatedEndpoint(world, sim);
      const profileId = await seedProfile(world, endpointId, { workload, requests, concurrency: 2, load });
      const runId = await seedManualRun(world, profileId);
      await producer.enqueueRun(runId);
      const row = await finished(runId);
      return {
        row,
        summary: row.summary as unknown as RunSummary,
        records: await readRunRequests(world.db, runId),
      };
    }

    it('reads the dataset a profile names by hash and sends each conversation as a session, every turn', async () => {
      const { asset } = await new AssetStore(world.db).put('dataset', 'application/x-ndjson', DATASET);
      const { row, summary, records } = await measured(
        { kind: 'dataset-asset', sha256: asset.sha256, format: 'sharegpt', sample: 4, maxTurns: 3 },
        10,
      );
      expect(row.status).toBe('succeeded');
      expect(records).toHaveLength(10);
      // every request kept its session and turn, and the turns of a session came in order
      const bySession = new Map<number, number[]>();
      for (const r of records)
        bySession.set(r.sessionId!, [...(bySession.get(r.sessionId!) ?? []), r.turnIndex!]);
      for (const turns of bySession.values()) expect([...turns].sort()).toEqual(turns.map((_, k) => k));
      // turn k's prompt is the server-counted history: never shorter than the turn before it in its session
      for (const r of records.filter((x) => x.turnIndex! > 0)) {
        const before = records.find((x) => x.sessionId === r.sessionId && x.turnIndex === r.turnIndex! - 1)!;
        expect(r.promptTokens!).toBeGreaterThan(before.promptTokens! + before.outputTokens - 1);
      }
      const words = parseConversations(DATASET.toString('utf8'), 'sharegpt').flatMap((c) => c.turns);
      expect(words.length).toBe(80);
      expect(summary.workload).toMatchObject({
        kind: 'conversations',
        sessions: bySession.size,
        dataset: { sha256: asset.sha256, format: 'sharegpt', read: 32, kept: 32, sampled: 4 },
      });
      expect(summary.workload!.promptTokens).toBe(records.reduce((n, r) => n + r.promptTokens!, 0));
      const turns = summary.turns!;
      expect(turns.byTurn.reduce((n, t) => n + (t.ttftMs?.count ?? 0), 0)).toBe(10);
      expect(turns.firstTtftMs!.count).toBe(records.filter((r) => r.turnIndex === 0).length);
      expect(turns.laterTtftMs!.count).toBe(records.filter((r) => r.turnIndex! > 0).length);
    });

    it('stores the exact reuse share of a shared-prefix run, and no session columns', async () => {
      const { summary, records } = await measured(
        {
          kind: 'shared-prefix',
          prefixes: 2,
          prefixTokens: 32,
          requestsPerPrefix: 3,
          suffixTokens: 16,
          outputTokens: 4,
        },
        6,
      );
      expect(records.every((r) => r.sessionId === null && r.turnIndex === null)).toBe(true);
      expect(records.reduce((n, r) => n + r.promptTokens!, 0)).toBe(6 * 48);
      expect(summary.workload).toEqual({
        kind: 'shared-prefix',
        prefixes: 2,
        promptTokens: 6 * 48,
        reusablePromptTokens: 2 * 2 * 32,
        expectedReuseShare: (2 * 2 * 32) / (6 * 48),
      });
    });

    it('replays the trace a profile names by hash, and stores its facts and the figures from the schedule', async () => {
      const lines = [0, 30, 60, 65, 70].map((ms, i) =>
        JSON.stringify({ timestamp: 5_000 + ms, input_length: 12 + i, output_length: 4 + i }),
      );
      const { asset } = await new AssetStore(world.db).put(
        'trace',
        'application/x-ndjson',
        Buffer.from(lines.join('\n')),
      );
      const { row, summary, records } = await measured(
        { kind: 'trace-asset', sha256: asset.sha256, speed: 2 },
        5,
        {
          kind: 'open',
          ratePerS: 1,
          arrival: 'poisson',
          maxConcurrency: 1,
        },
      );
      expect(row.status).toBe('succeeded');
      const sent = [...records].sort((a, b) => a.scheduledUs - b.scheduledUs);
      expect(sent.map((r) => r.promptTokens)).toEqual([12, 13, 14, 15, 16]);
      expect(sent.map((r) => r.outputTokens)).toEqual([4, 5, 6, 7, 8]);
      expect(sent.map((r) => Math.round((r.scheduledUs - sent[0].scheduledUs) / 1000))).toEqual([
        0, 15, 30, 33, 35,
      ]);
      expect(summary.workload?.trace).toEqual({
        sha256: asset.sha256,
        format: 'mooncake',
        lines: 5,
        spanS: 0.07,
        speed: 2,
      });
      // one request in flight at a time: the later lines waited for a slot, and only the schedule counts it
      expect(summary.sendLateness).toMatchObject({ sent: 5 });
      expect(summary.sendLateness!.late).toBeGreaterThan(0);
      expect(summary.ttftFromScheduleMs!.max).toBeGreaterThan(summary.ttftMs!.max);
    });

    it('fails a run whose dataset is not stored, saying which', async () => {
      const { row } = await measured(
        { kind: 'dataset-asset', sha256: 'f'.repeat(64), format: 'sharegpt' },
        2,
      );
      expect(row.status).toBe('failed');
      expect(row.error).toContain(`dataset ${'f'.repeat(64)} is not stored`);
    });
  });
});
