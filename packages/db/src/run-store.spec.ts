import { HEADLINES, headlineFigures } from '@teapot/contracts';
import { CHUNK_KIND, requestMetrics, summarize, type RequestRecord, type RunResult } from '@teapot/measure';
import { createDatabase, type Database } from './client';
import { HISTOGRAM_RELATIVE_ERROR } from '@teapot/stats';
import { dropRawTimings } from './retention';
import { readRunHistograms, readRunRequests, streamRunRequests } from './run-reader';
import { persistRunResultByInsert } from './baselines';
import { buildHistograms, persistRunResult } from './run-writer';
import { createTestDatabase, syntheticRunResult, type TestDatabase } from './testing';

function record(index: number, overrides: Partial<RequestRecord>): RequestRecord {
  return {
    index,
    warmup: false,
    outcome: 'ok',
    scheduledUs: index * 1000,
    startUs: index * 1000 + 7,
    ttfbUs: 900,
    chunkOffsetsUs: Uint32Array.of(1000, 5000, 9000, 9100),
    chunkTokens: Uint16Array.of(0, 1, 3, 0),
    chunkKinds: Uint8Array.of(CHUNK_KIND.empty, CHUNK_KIND.content, CHUNK_KIND.content, CHUNK_KIND.empty),
    tokenSource: 'usage_delta',
    outputTokens: 4,
    promptTokens: 100,
    targetPromptTokens: 96,
    responseId: `cmpl-${index}`,
    finishReason: 'stop',
    sessionId: null,
    turnIndex: null,
    ...overrides,
  };
}

/** numpy's default (linear) percentile, as packages/measure/README.md defines them, q in [0, 1]. */
function exactPercentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (rank - below);
}

/** Every kind of request a run can hold. */
function mixedRun(overrides: Partial<RunResult> = {}): RunResult {
  const requests: RequestRecord[] = [
    record(0, { warmup: true }),
    record(1, {
      chunkOffsetsUs: Uint32Array.of(800, 1200, 4100, 4200, 9000),
      chunkTokens: Uint16Array.of(0, 2, 0, 5, 0),
      chunkKinds: Uint8Array.of(
        CHUNK_KIND.empty,
        CHUNK_KIND.reasoning,
        CHUNK_KIND.empty,
        CHUNK_KIND.toolCall,
        CHUNK_KIND.empty,
      ),
      tokenSource: 'usage_final',
      outputTokens: 7,
      sessionId: 12,
      turnIndex: 3,
    }),
    record(2, {
      outcome: 'error',
      error: { kind: 'rate_limited', message: 'Too Many Requests', status: 429, retryAfterS: 1.5 },
      ttfbUs: 300,
      chunkOffsetsUs: new Uint32Array(0),
      chunkTokens: new Uint16Array(0),
      chunkKinds: new Uint8Array(0),
      outputTokens: 0,
      promptTokens: null,
      responseId: null,
      finishReason: null,
    }),
    record(3, {
      outcome: 'error',
      error: { kind: 'connect_refused', message: 'connect ECONNREFUSED 127.0.0.1:1' },
      ttfbUs: null,
      chunkOffsetsUs: new Uint32Array(0),
      chunkTokens: new Uint16Array(0),
      chunkKinds: new Uint8Array(0),
      tokenSource: 'chunk',
      outputTokens: 0,
      promptTokens: null,
      targetPromptTokens: null,
      responseId: null,
      finishReason: null,
    }),
    record(4, {
      outcome: 'incomplete',
      chunkOffsetsUs: Uint32Array.of(1000, 2000),
      chunkTokens: Uint16Array.of(0, 1),
      chunkKinds: Uint8Array.of(CHUNK_KIND.empty, CHUNK_KIND.content),
      tokenSource: 'chunk',
      outputTokens: 1,
      finishReason: null,
    }),
    record(5, {
      chunkOffsetsUs: Uint32Array.of(4_294_967_295),
      chunkTokens: Uint16Array.of(65_535),
      chunkKinds: Uint8Array.of(0),
    }),
  ];
  return {
    wallAnchorMs: 1_790_000_000_123,
    monotonicAnchorNs: '98765432109876543',
    durationUs: 20_000,
    requests,
    summary: summarize(requests, { durationUs: 20_000 }),
    client: { eventLoopDelayMs: { p50: 0.4, p99: 1.5, max: 2.5, mean: 0.5 }, saturated: false },
    streamOptions: { requested: true, rejectedByServer: true },
    transport: 'http1',
    aborted: false,
    measureVersion: '0.2.0',
    connectBackoff: { outages: 0, pauses: 0, pausedMs: 0, longestOutageMs: 0, gaveUp: false },
    warmUp: { chunks: 0, connections: 0, durationMs: 0 },
    ...overrides,
  };
}

describe('run store', () => {
  let testDb: TestDatabase;
  let db: Database;
  let endpointId: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase(testDb.url);
    const endpoint = await db.prisma.endpoint.create({
      data: { name: 'sim', baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'llama-8b' },
    });
    endpointId = endpoint.id;
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  async function newRun(): Promise<string> {
    const run = await db.prisma.run.create({
      data: { endpointId, profileSnapshot: {}, trigger: 'manual', status: 'running' },
    });
    return run.id;
  }

  it('reads back exactly the records it wrote, and fills the run row', async () => {
    const runId = await newRun();
    const result = mixedRun();
    const config = await db.prisma.servingConfig.create({
      data: { endpointId, version: 1, weightQuant: 'fp8' },
    });
    const persisted = await persistRunResult(db, runId, result, { configId: config.id });
    expect(persisted).toEqual({ written: true, status: 'partial', requests: 6 });

    expect(await readRunRequests(db, runId)).toStrictEqual(result.requests);
    expect(await readRunRequests(db.pool, runId, { offset: 2, limit: 2 })).toStrictEqual(
      result.requests.slice(2, 4),
    );

    const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({
      status: 'partial',
      configId: config.id,
      error: null,
      wallAnchor: new Date(result.wallAnchorMs),
      monotonicAnchorNs: 98765432109876543n,
      durationUs: 20_000n,
      ttftP99Ms: result.summary.ttftMs!.p99,
      itlP50Ms: result.summary.itlMs!.p50,
      requestsSucceeded: 2,
      requestsFailed: 2,
      requestsIncomplete: 1,
      errorCounts: { rate_limited: 1, connect_refused: 1 },
      eventLoopDelayP99Ms: 1.5,
      clientSaturated: false,
      clientHealth: result.client,
      streamOptionsRequested: true,
      streamOptionsRejected: true,
      transport: 'http1',
      measureVersion: '0.2.0',
      summary: JSON.parse(JSON.stringify(result.summary)),
    });
    expect(run.startedAt).toEqual(new Date(result.wallAnchorMs));
    expect(run.finishedAt).toBeInstanceOf(Date);
    // Every headline column of the metric catalogue, 2 of 4 finished requests failed.
    for (const h of HEADLINES)
      expect([h.field, run[h.field]]).toEqual([h.field, headlineFigures(result.summary)[h.field]]);
    expect(run.errorRate).toBe(0.5);

    const rows = await db.prisma.runRequest.findMany({ where: { runId }, orderBy: { index: 'asc' } });
    for (const [i, row] of rows.entries()) {
      const metrics = requestMetrics(result.requests[i]);
      expect([row.ttftUs, row.e2eUs, row.chunkCount]).toEqual([
        metrics.ttftUs === null ? null : BigInt(metrics.ttftUs),
        metrics.e2eUs === null ? null : BigInt(metrics.e2eUs),
        result.requests[i].chunkOffsetsUs.length,
      ]);
    }
    // Packed little-endian, as the schema documents.
    expect(rows[1].chunkOffsetsUs).toEqual(
      new Uint8Array([0x20, 3, 0, 0, 0xb0, 4, 0, 0, 0x04, 0x10, 0, 0, 0x68, 0x10, 0, 0, 0x28, 0x23, 0, 0]),
    );
  });

  it('keeps mergeable histograms of the successful measured requests', async () => {
    const runId = await newRun();
    await persistRunResult(db, runId, mixedRun());
    const histograms = await readRunHistograms(db, runId);
    expect(Object.keys(histograms).sort()).toEqual(['e2e', 'itl', 'tpot', 'ttft']);
    // Warm-up (0), failed (2, 3) and incomplete (4) requests stay out: ITL samples of requests 1 and 5 only.
    expect(histograms.itl!.count).toBe(5);
    expect(histograms.ttft!.count).toBe(2);
  });

  it("stores histograms whose P50/P90/P99 are the exact percentiles of the run's samples", async () => {
    const runId = await newRun();
    const result = syntheticRunResult({ requests: 40, tokensPerRequest: 30, seed: 5 });
    // A slow warm-up and a failed request: their samples would move every percentile if stored.
    const slow = (r: RequestRecord) => ({ ...r, chunkOffsetsUs: r.chunkOffsetsUs.map((t) => t * 20) });
    result.requests[0] = { ...slow(result.requests[0]), warmup: true };
    result.requests[1] = { ...slow(result.requests[1]), outcome: 'incomplete' };
    await persistRunResult(db, runId, result);
    const histograms = await readRunHistograms(db, runId);
    const measured = result.requests.filter((r) => !r.warmup && r.outcome === 'ok').map(requestMetrics);
    const samples = {
      ttft: measured.map((m) => m.ttftUs!),
      tpot: measured.map((m) => m.tpotUs!),
      e2e: measured.map((m) => m.e2eUs!),
      itl: measured.flatMap((m) => [...m.itlUs]),
    };
    for (const [metric, values] of Object.entries(samples) as Array<[keyof typeof samples, number[]]>) {
      expect([metric, histograms[metric]!.count]).toEqual([metric, values.length]);
      for (const q of [0.5, 0.9, 0.99]) {
        const exact = exactPercentile(values, q);
        const stored = histograms[metric]!.percentile(q)!;
        // The histogram's documented bound (packages/stats/src/histogram.ts).
        expect([metric, q, Math.abs(stored - exact) <= exact * HISTOGRAM_RELATIVE_ERROR + 0.5]).toEqual([
          metric,
          q,
          true,
        ]);
      }
    }
  });

  it('merges histograms across runs into the histogram of all their requests', async () => {
    const a = syntheticRunResult({ requests: 20, tokensPerRequest: 50, seed: 11 });
    const b = syntheticRunResult({ requests: 30, tokensPerRequest: 40, seed: 12 });
    const [runA, runB] = [await newRun(), await newRun()];
    await persistRunResult(db, runA, a);
    await persistRunResult(db, runB, b);
    const merged = await readRunHistograms(db, [runA, runB]);
    const union = buildHistograms([...a.requests, ...b.requests]);
    expect(merged.itl!.encode()).toEqual(union.itl.encode());
    expect(merged.itl!.count).toBe(20 * 49 + 30 * 39);
  });

  it('derives the run status from the requests', async () => {
    const ok = mixedRun();
    ok.requests = ok.requests.filter((r) => r.outcome !== 'error');
    const failed = mixedRun();
    failed.requests = failed.requests.filter((r) => r.warmup || r.outcome === 'error');
    failed.summary = summarize(failed.requests);
    const cases: Array<[RunResult, string, string | null]> = [
      [ok, 'succeeded', null],
      [failed, 'failed', 'all 2 requests failed (rate_limited x1, connect_refused x1)'],
      [mixedRun({ aborted: true }), 'aborted', 'aborted before it finished'],
    ];
    for (const [result, status, error] of cases) {
      const runId = await newRun();
      expect((await persistRunResult(db, runId, result)).status).toBe(status);
      expect(await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({
        status,
        error,
      });
    }
  });

  it('writes run.failed in the transaction that stores a failed run, once, and only for failed runs', async () => {
    const subscription = await db.prisma.webhookSubscription.create({
      data: { url: 'https://hooks.example.com/', eventTypes: ['run.failed'], secretEnc: Buffer.from('x') },
    });
    const failed = mixedRun();
    failed.requests = failed.requests.filter((r) => r.warmup || r.outcome === 'error');
    failed.summary = summarize(failed.requests);
    const runId = await newRun();
    await persistRunResult(db, runId, failed);
    // A retried write of the same failed run replaces the rows and announces nothing new.
    await persistRunResult(db, runId, failed);
    const events = await db.prisma.webhookEvent.findMany({
      where: { type: 'run.failed', data: { path: ['runId'], equals: runId } },
      include: { deliveries: true },
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      endpointId,
      data: {
        runId,
        trigger: 'manual',
        status: 'failed',
        error: 'all 2 requests failed (rate_limited x1, connect_refused x1)',
        requests: { succeeded: 0, failed: 2 },
      },
      links: { run: `/runs/${runId}` },
    });
    expect(events[0].deliveries.map((d) => d.subscriptionId)).toEqual([subscription.id]);

    const partial = await newRun();
    await persistRunResult(db, partial, mixedRun());
    expect(
      await db.prisma.webhookEvent.count({ where: { data: { path: ['runId'], equals: partial } } }),
    ).toBe(0);
    await db.prisma.webhookSubscription.delete({ where: { id: subscription.id } });
  });

  it('replaces, never duplicates, when the same run is persisted again', async () => {
    const runId = await newRun();
    await persistRunResult(db, runId, syntheticRunResult({ requests: 40, tokensPerRequest: 20 }));
    const retried = mixedRun();
    await persistRunResult(db, runId, retried);
    await persistRunResult(db, runId, retried);
    expect(await db.prisma.runRequest.count({ where: { runId } })).toBe(6);
    expect(await db.prisma.runHistogram.count({ where: { runId } })).toBe(4);
    expect(await readRunRequests(db, runId)).toStrictEqual(retried.requests);
  });

  it('rolls back everything when the write fails midway', async () => {
    const runId = await newRun();
    const first = syntheticRunResult({ requests: 50, tokensPerRequest: 30, seed: 3 });
    await persistRunResult(db, runId, first);
    const before = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });

    const broken = syntheticRunResult({ requests: 3000, tokensPerRequest: 100, seed: 4 });
    broken.requests[2500].startUs = 1.5;
    await expect(persistRunResult(db, runId, broken)).rejects.toThrow(
      /request 2500: startUs must be an integer/,
    );

    expect(await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).toEqual(before);
    expect(await readRunRequests(db, runId)).toStrictEqual(first.requests);
    expect(await db.prisma.runHistogram.count({ where: { runId } })).toBe(4);

    const fresh = await newRun();
    await expect(persistRunResult(db, fresh, broken)).rejects.toThrow(/startUs/);
    expect(await db.prisma.runRequest.count({ where: { runId: fresh } })).toBe(0);
    expect(await db.prisma.run.findUniqueOrThrow({ where: { id: fresh } })).toMatchObject({
      status: 'running',
      summary: null,
    });
  });

  it("stores a sweep point's figures with the result, and keeps them when a rewrite brings none", async () => {
    const runId = await newRun();
    const figures = { offered: 2, achievedRps: 1.9, goodShare: 0.75 };
    await persistRunResult(db, runId, mixedRun(), { sweepPoint: figures });
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).sweepPoint).toEqual(figures);
    await persistRunResult(db, runId, mixedRun());
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).sweepPoint).toEqual(figures);
    const broken = syntheticRunResult({ requests: 3, tokensPerRequest: 4 });
    broken.requests[1].startUs = 0.5;
    await expect(persistRunResult(db, runId, broken, { sweepPoint: { offered: 9 } })).rejects.toThrow(
      /startUs/,
    );
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).sweepPoint).toEqual(figures);
  });

  it('writes nothing when a newer attempt owns the run', async () => {
    const runId = await newRun();
    await db.prisma.run.update({ where: { id: runId }, data: { attempts: 2 } });
    expect(await persistRunResult(db, runId, mixedRun(), { attempt: 1 })).toMatchObject({ written: false });
    expect(await db.prisma.runRequest.count({ where: { runId } })).toBe(0);
    expect(await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({
      status: 'running',
      summary: null,
    });
    expect(await persistRunResult(db, runId, mixedRun(), { attempt: 2 })).toMatchObject({
      written: true,
      status: 'partial',
    });
    expect(await db.prisma.runRequest.count({ where: { runId } })).toBe(6);
  });

  it('refuses a run that does not exist', async () => {
    await expect(persistRunResult(db, '00000000-0000-4000-8000-000000000000', mixedRun())).rejects.toThrow(
      /run 00000000-0000-4000-8000-000000000000 does not exist/,
    );
  });

  it('writes the same rows through the unnest INSERT as through COPY', async () => {
    const runId = await newRun();
    const result = mixedRun();
    await persistRunResultByInsert(db, runId, result);
    expect(await readRunRequests(db, runId)).toStrictEqual(result.requests);
  });

  it('keeps text PostgreSQL cannot store readable', async () => {
    const runId = await newRun();
    const result = mixedRun();
    result.requests[2].error!.message = 'bad\0byte';
    await persistRunResult(db, runId, result);
    const [errored] = await readRunRequests(db, runId, { offset: 2, limit: 1 });
    expect(errored.error!.message).toBe('bad\uFFFDbyte');
  });

  it('streams a run in batches for exports', async () => {
    const runId = await newRun();
    const result = syntheticRunResult({ requests: 25, tokensPerRequest: 10 });
    await persistRunResult(db, runId, result);
    const batches: RequestRecord[][] = [];
    for await (const batch of streamRunRequests(db, runId, { batchSize: 10 })) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toStrictEqual(result.requests);
  });

  it('drops raw timings of old runs in bounded batches and keeps everything else', async () => {
    const [oldRun, newRunId] = [await newRun(), await newRun()];
    const oldResult = syntheticRunResult({ requests: 10, tokensPerRequest: 5, seed: 21 });
    const newResult = syntheticRunResult({ requests: 4, tokensPerRequest: 5, seed: 22 });
    const serverMetrics = {
      diagnostics: { scrapes: 2, failedScrapes: 0, preemptions: 3 },
      offsetsMs: [-1.5, 900.25],
      series: { counters: { preemptions: [4, 7] } },
    };
    await persistRunResult(db, oldRun, oldResult, {
      finishedAt: new Date('2020-01-01T00:00:00Z'),
      serverMetrics,
    });
    await persistRunResult(db, newRunId, newResult, {
      finishedAt: new Date('2030-01-01T00:00:00Z'),
      serverMetrics,
    });
    expect(await db.prisma.runServerSamples.findUnique({ where: { runId: oldRun } })).toMatchObject({
      offsetsMs: [-1.5, 900.25],
      series: serverMetrics.series,
    });
    const histogramsBefore = await readRunHistograms(db, oldRun);
    const cutoff = new Date('2025-01-01T00:00:00Z');
    // Other runs of this suite finished "now" (after the cutoff) and must stay too.
    const keptElsewhere = await db.prisma.runRequest.count({
      where: { runId: { not: oldRun }, rawDroppedAt: null },
    });

    expect(await dropRawTimings(db, { olderThan: cutoff, batchSize: 3 })).toEqual({
      requests: 10,
      batches: 4,
      serverSamples: 1,
    });
    expect(await dropRawTimings(db, { olderThan: cutoff, batchSize: 3 })).toEqual({
      requests: 0,
      batches: 0,
      serverSamples: 0,
    });
    // The samples go with the raw timings; the diagnostics derived from them stay on the run.
    expect(await db.prisma.runServerSamples.findUnique({ where: { runId: oldRun } })).toBeNull();
    expect(await db.prisma.runServerSamples.findUnique({ where: { runId: newRunId } })).not.toBeNull();
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: oldRun } })).serverDiagnostics).toEqual(
      serverMetrics.diagnostics,
    );

    const dropped = await readRunRequests(db, oldRun);
    expect(dropped.map((r) => r.chunkOffsetsUs.length)).toEqual(new Array(10).fill(0));
    expect(dropped.map((r) => r.outputTokens)).toEqual(oldResult.requests.map((r) => r.outputTokens));
    const rows = await db.prisma.runRequest.findMany({ where: { runId: oldRun } });
    expect(rows.every((r) => r.rawDroppedAt !== null && r.chunkCount === 7 && r.ttftUs !== null)).toBe(true);
    expect((await readRunHistograms(db, oldRun)).itl!.encode()).toEqual(histogramsBefore.itl!.encode());
    expect((await db.prisma.run.findUniqueOrThrow({ where: { id: oldRun } })).summary).not.toBeNull();

    expect(await readRunRequests(db, newRunId)).toStrictEqual(newResult.requests);
    expect(await db.prisma.runRequest.count({ where: { runId: { not: oldRun }, rawDroppedAt: null } })).toBe(
      keptElsewhere,
    );
  });
});
