/**
 * Worker throughput: one worker process (apps/worker/dist/main.js, the real app) benchmarks a
 * simulator in another process and persists every run; how many measured output tokens per wall
 * second end up stored, and are the stored timings still as accurate as the measurement package
 * alone? Baseline, in the same run: the same load measured by runBenchmarkInThread() alone (a measuring
 * thread per run, as the worker does), in this process, with no queue and no database.
 *
 * The worker measures each run on a thread of its own while its main thread persists the runs that
 * ended (issue #13): at WORKER_CONCURRENCY 4 the stored timings' P99 added delay must stay within
 * TARGET_C4_OVER_C1 of WORKER_CONCURRENCY 1's. The bench prints both and the ratio.
 *
 * Accuracy: for a sample of requests, each stored chunk arrival (run anchor + request start + chunk
 * offset, on CLOCK_MONOTONIC) minus the instant the simulator wrote that chunk (its ground truth
 * side channel, same clock): the delay the measurement added, which must stay under 1 ms at P99.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench throughput
 */
import { loadavg } from 'node:os';
import { readRunRequests } from '@teapot/db';
import { measuredOutputTokens } from '@teapot/db/testing';
import { fetchGroundTruth } from '@teapot/simulator';
import {
  CHUNK_KIND,
  percentileSummary,
  runBenchmarkInThread,
  type PercentileSummary,
  type RequestRecord,
  type RunResult,
} from '@teapot/measure';
import {
  createWorld,
  machineLine,
  queueRuns,
  seedEndpoints,
  startSimulatorProcess,
  startWorkerProcess,
  textTable,
  waitForRuns,
  type BenchWorld,
} from './harness';

/**
 * 8 x H200 at FP8 (weights and KV) with chunked prefill: fast enough that a few hundred streams exceed
 * 100k tokens/s. Timers only (no spinning), so the simulator leaves CPU to the measuring process.
 */
const SIMULATOR_ARGS =
  '--gpu h200 --quant fp8 --kv-quant fp8 --tp 8 --max-batch 4096 --chunked-prefill --spin-us 0';
/** Tokens per SSE chunk, as servers bundle under load (vLLM's stream interval). */
const TOKENS_PER_CHUNK = 16;
/**
 * The load, shaped two ways with the same tokens: one endpoint at a time (WORKER_CONCURRENCY 1), and
 * four endpoints measured at once in the one process (WORKER_CONCURRENCY 4), where each run's end
 * (summary, histograms, the COPY) happens while the others still measure.
 */
interface Shape {
  label: string;
  endpoints: number;
  runsPerEndpoint: number;
  streams: number;
  requests: number;
}
const SHAPES: Shape[] = [
  { label: 'c1: 1 endpoint x 768 streams', endpoints: 1, runsPerEndpoint: 2, streams: 768, requests: 1024 },
  { label: 'c4: 4 endpoints x 192 streams', endpoints: 4, runsPerEndpoint: 2, streams: 192, requests: 256 },
];
const INPUT_TOKENS = 32;
const OUTPUT_TOKENS = 512;
/** Spread output lengths so streams drift apart, as on a real server, instead of finishing in lockstep. */
const LENGTH_JITTER = 0.5;
/** Requests per run whose every chunk is compared with the ground truth. */
const ACCURACY_SAMPLE_PER_RUN = 128;
const TARGET_TOKENS_PER_S = 100_000;
const TARGET_ADDED_DELAY_P99_MS = 1;
/** Stored added delay P99 at WORKER_CONCURRENCY 4 over WORKER_CONCURRENCY 1, at most. */
const TARGET_C4_OVER_C1 = 1.5;

interface Accuracy {
  /** Token chunks compared with what the simulator wrote. */
  chunks: number;
  /** Sampled requests whose chunks did not line up one to one with the ground truth. */
  unmatched: number;
  addedDelayMs: PercentileSummary | null;
}

/** Measured arrival minus simulator write time for every token chunk of the sampled requests. */
async function accuracyOf(
  baseUrl: string,
  samples: Array<{ anchorNs: bigint; records: RequestRecord[] }>,
): Promise<Accuracy> {
  const ids = samples.flatMap(({ records }) => records.map((record) => record.responseId ?? ''));
  const truth = await fetchGroundTruth(baseUrl, ids);
  const delaysMs: number[] = [];
  let unmatched = 0;
  for (const { anchorNs, records } of samples) {
    for (const record of records) {
      const sent = truth
        .get(record.responseId ?? '')
        ?.events.filter((event) => event.kind === 'content' && event.tokens > 0);
      const arrivals: Array<{ ns: bigint; tokens: number }> = [];
      for (let i = 0; i < record.chunkOffsetsUs.length; i++) {
        if (record.chunkKinds[i] === CHUNK_KIND.empty || record.chunkTokens[i] === 0) continue;
        arrivals.push({
          ns: anchorNs + BigInt(record.startUs + record.chunkOffsetsUs[i]) * 1000n,
          tokens: record.chunkTokens[i],
        });
      }
      if (
        !sent ||
        sent.length !== arrivals.length ||
        sent.some((event, i) => event.tokens !== arrivals[i].tokens)
      ) {
        unmatched++;
        continue;
      }
      sent.forEach((event, i) => delaysMs.push(Number(arrivals[i].ns - event.writtenNs) / 1e6));
    }
  }
  return {
    chunks: delaysMs.length,
    unmatched,
    addedDelayMs: delaysMs.length > 0 ? percentileSummary(delaysMs) : null,
  };
}

/** Successful requests at even steps through the run, so its start and end count as much as its middle. */
function evenSample(records: RequestRecord[]): RequestRecord[] {
  const ok = records.filter((record) => record.outcome === 'ok' && !record.warmup);
  const step = Math.max(1, Math.floor(ok.length / ACCURACY_SAMPLE_PER_RUN));
  return ok.filter((_, i) => i % step === 0).slice(0, ACCURACY_SAMPLE_PER_RUN);
}

interface Figures {
  label: string;
  runs: number;
  /** Measured output tokens of successful requests (stored ones, for the worker). */
  tokens: number;
  wallS: number;
  tokensPerS: number;
  saturatedRuns: number;
  /** The worst run's event-loop delay P99, ms: how busy the measuring process was. */
  loopP99Ms: number;
  accuracy: Accuracy;
}

async function measureWithWorker(world: BenchWorld, baseUrl: string, shape: Shape): Promise<Figures> {
  const seeded = await seedEndpoints(world, shape.endpoints, baseUrl, {
    concurrency: shape.streams,
    requests: shape.requests,
    inputTokens: INPUT_TOKENS,
    outputTokens: OUTPUT_TOKENS,
    lengthJitter: LENGTH_JITTER,
  });
  const profileIds = seeded.map((s) => s.profileId);
  // Every round is queued at once: a run whose endpoint is still busy is retried 100 ms later, not 5 s.
  const worker = await startWorkerProcess(world, `throughput-worker-${shape.endpoints}`, {
    WORKER_CONCURRENCY: String(shape.endpoints),
    ENDPOINT_BUSY_RETRY_MS: '100',
  });
  try {
    const started = Date.now();
    const runIds: string[] = [];
    for (let round = 0; round < shape.runsPerEndpoint; round++)
      runIds.push(...(await queueRuns(world, profileIds)));
    const runs = await waitForRuns(world, runIds, 170_000, [worker]);
    const finishedMs = Math.max(...runs.map((run) => run.finishedAt?.getTime() ?? Date.now()));
    const wallS = (finishedMs - started) / 1000;
    const tokens = await measuredOutputTokens(world.db, runIds);
    const failed = runs.filter((run) => run.status !== 'succeeded');
    if (failed.length > 0) {
      throw new Error(
        `runs did not succeed: ${failed.map((run) => `${run.status}: ${run.error}`).join('; ')}`,
      );
    }
    // The sample is read back from the database: the stored timings are what is checked.
    const samples = [];
    for (const run of runs) {
      const records = await readRunRequests(world.db.pool, run.id);
      samples.push({ anchorNs: run.monotonicAnchorNs ?? 0n, records: evenSample(records) });
    }
    return {
      label: `${shape.label}, worker`,
      runs: runs.length,
      tokens,
      wallS,
      tokensPerS: tokens / wallS,
      saturatedRuns: runs.filter((run) => run.clientSaturated).length,
      loopP99Ms: Math.max(...runs.map((run) => run.eventLoopDelayP99Ms ?? 0)),
      accuracy: await accuracyOf(baseUrl, samples),
    };
  } finally {
    await worker.stop();
  }
}

/** The same runs, same concurrency per endpoint, measured on threads of this process with nothing around them. */
async function measureAlone(baseUrl: string, shape: Shape): Promise<Figures> {
  const started = performance.now();
  const results: RunResult[] = [];
  for (let round = 0; round < shape.runsPerEndpoint; round++) {
    const roundResults = await Promise.all(
      Array.from({ length: shape.endpoints }, (_, i) =>
        runBenchmarkInThread({
          target: { baseUrl, apiKind: 'chat', model: 'llama-8b' },
          workload: {
            kind: 'synthetic',
            inputTokens: INPUT_TOKENS,
            outputTokens: OUTPUT_TOKENS,
            lengthJitter: LENGTH_JITTER,
          },
          load: { kind: 'closed', concurrency: shape.streams },
          requests: shape.requests,
          seed: i + 1,
          timeoutMs: 120_000,
          stallTimeoutMs: 30_000,
          forceOutputLength: true,
        }),
      ),
    );
    results.push(...roundResults);
  }
  const wallS = (performance.now() - started) / 1000;
  const tokens = results.reduce(
    (sum, result) =>
      sum +
      result.requests.filter((r) => !r.warmup && r.outcome === 'ok').reduce((s, r) => s + r.outputTokens, 0),
    0,
  );
  const samples = results.map((result) => ({
    anchorNs: BigInt(result.monotonicAnchorNs),
    records: evenSample(result.requests),
  }));
  return {
    label: `${shape.label}, alone`,
    runs: results.length,
    tokens,
    wallS,
    tokensPerS: tokens / wallS,
    saturatedRuns: results.filter((result) => result.client.saturated).length,
    loopP99Ms: Math.max(...results.map((result) => result.client.eventLoopDelayMs.p99)),
    accuracy: await accuracyOf(baseUrl, samples),
  };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const world = await createWorld();
  const simulator = await startSimulatorProcess([
    ...SIMULATOR_ARGS.split(' '),
    '--tokens-per-chunk',
    String(TOKENS_PER_CHUNK),
  ]);
  const figures: Array<{ worker: Figures; alone: Figures }> = [];
  try {
    for (const shape of SHAPES) {
      const worker = await measureWithWorker(world, simulator.baseUrl, shape);
      process.stderr.write(`${row(worker)}\n`);
      const alone = await measureAlone(simulator.baseUrl, shape);
      process.stderr.write(`${row(alone)}\n`);
      figures.push({ worker, alone });
    }
  } finally {
    await simulator.process.stop();
    await world.close();
  }

  const lines = [
    '',
    `Throughput: per shape ${SHAPES[0].runsPerEndpoint} rounds of runs, ${INPUT_TOKENS} in / ${OUTPUT_TOKENS} (+-${LENGTH_JITTER * 100}%) ` +
      `out tokens per request, ${TOKENS_PER_CHUNK} tokens per SSE chunk; simulator (${SIMULATOR_ARGS}) in its own process.`,
    'worker = one worker process (apps/worker/dist/main.js) measuring (a thread per run) and persisting; alone = runBenchmarkInThread() in this process, no queue, no database.',
    "Added delay: stored (or measured) chunk arrival minus the simulator's write time, ms, over an even sample of every run's requests.",
    TABLE.header,
  ];
  for (const { worker, alone } of figures) {
    lines.push(
      row(worker),
      row(alone),
      `${''.padEnd(38)}  worker/alone: ${(worker.tokensPerS / alone.tokensPerS).toFixed(2)}x tokens/s, ` +
        `added delay P99 ${ratioText(worker.accuracy.addedDelayMs?.p99, alone.accuracy.addedDelayMs?.p99)}`,
    );
  }
  for (const { worker, alone } of figures) {
    const p99 = worker.accuracy.addedDelayMs?.p99;
    const aloneP99 = alone.accuracy.addedDelayMs?.p99;
    lines.push(
      `${worker.label}: >= ${TARGET_TOKENS_PER_S.toLocaleString('en-US')} stored tokens/s ` +
        `${worker.tokensPerS >= TARGET_TOKENS_PER_S ? 'met' : 'MISSED'} (${Math.round(worker.tokensPerS).toLocaleString('en-US')}); ` +
        `added delay P99 < ${TARGET_ADDED_DELAY_P99_MS} ms ${p99 !== undefined && p99 < TARGET_ADDED_DELAY_P99_MS ? 'met' : 'MISSED'} ` +
        `(${p99 === undefined ? 'no data' : `${p99.toFixed(3)} ms`}; the measurement package alone: ${aloneP99 === undefined ? '-' : `${aloneP99.toFixed(3)} ms`})`,
    );
  }
  const [c1, c4] = figures.map(({ worker }) => worker.accuracy.addedDelayMs?.p99);
  const c4OverC1 = c1 !== undefined && c4 !== undefined && c1 > 0 ? c4 / c1 : null;
  lines.push(
    `stored added delay P99, WORKER_CONCURRENCY 4 vs 1: ${c4 === undefined ? '-' : c4.toFixed(3)} ms vs ` +
      `${c1 === undefined ? '-' : c1.toFixed(3)} ms = ${c4OverC1 === null ? '-' : `${c4OverC1.toFixed(2)}x`} ` +
      `(<= ${TARGET_C4_OVER_C1}x ${c4OverC1 !== null && c4OverC1 <= TARGET_C4_OVER_C1 ? 'met' : 'MISSED'})`,
  );
  lines.push(machineLine(loadBefore, startedAt));
  process.stdout.write(lines.join('\n') + '\n');
}

const TABLE = textTable([
  ['shape, client', 38],
  ['runs', 5],
  ['tokens', 10],
  ['wall s', 7],
  ['tokens/s', 9],
  ['saturated', 9],
  ['loop P99', 8],
  ['chunks', 7],
  ['lost', 5],
  ['delay P50', 9],
  ['P99', 7],
  ['max', 7],
]);

function row(f: Figures): string {
  const d = f.accuracy.addedDelayMs;
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(3));
  return TABLE.line([
    f.label,
    String(f.runs),
    String(f.tokens),
    f.wallS.toFixed(2),
    Math.round(f.tokensPerS).toString(),
    String(f.saturatedRuns),
    f.loopP99Ms.toFixed(1),
    String(f.accuracy.chunks),
    String(f.accuracy.unmatched),
    ms(d?.p50),
    ms(d?.p99),
    ms(d?.max),
  ]);
}

function ratioText(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b <= 0 ? '-' : `${(a / b).toFixed(2)}x`;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `throughput: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
