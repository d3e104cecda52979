/**
 * Worker throughput: one worker process (apps/worker/dist/main.js, the real app) benchmarks a
 * simulator in another process and persists every run; how many measured output tokens per wall
 * second end up stored, and are the stored timings still as accurate as the measurement package
 * alone? Baseline, in the same run: the same load measured by runBenchmark() alone, in this process,
 * with no queue and no database.
 *
 * Accuracy: for a sample of requests, each stored chunk arrival (run anchor + request start + chunk
 * offset, on CLOCK_MONOTONIC) minus the instant the simulator wrote that chunk (its ground truth
 * side channel, same clock): the delay the measurement added, which must stay under 1 ms at P99.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench throughput
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createDatabase, readRunRequests, type Database } from '@teapot/db';
import { createTestDatabase, type TestDatabase } from '@teapot/db/testing';
import { RunQueueProducer, deleteRedisPrefix } from '@teapot/jobs';
import { fetchGroundTruth } from '@teapot/simulator';
import {
  CHUNK_KIND,
  percentileSummary,
  runBenchmark,
  type PercentileSummary,
  type RequestRecord,
  type RunResult,
} from '@teapot/measure';

export const REPO = join(__dirname, '..', '..');
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WORKER_MAIN = join(REPO, 'apps', 'worker', 'dist', 'main.js');
const SIMULATOR_MAIN = join(REPO, 'packages', 'simulator', 'dist', 'main.js');

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

/** One benchmark's isolated world: its own database and Redis prefix, dropped at the end. */
export interface BenchWorld {
  databaseUrl: string;
  prefix: string;
  secretKey: string;
  db: Database;
  producer: RunQueueProducer;
  /** Environment of a worker process in this world; overrides win. */
  workerEnv(overrides?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function createWorld(name: string): Promise<BenchWorld> {
  const testDb: TestDatabase = await createTestDatabase();
  const prefix = `teapot-bench-${name}-${randomUUID()}`;
  const secretKey = randomBytes(32).toString('base64');
  const db = createDatabase(testDb.url, { max: 4 });
  const producer = new RunQueueProducer({ redis: REDIS_URL, prefix });
  return {
    databaseUrl: testDb.url,
    prefix,
    secretKey,
    db,
    producer,
    workerEnv: (overrides = {}) => ({
      PATH: process.env.PATH ?? '',
      DATABASE_URL: testDb.url,
      REDIS_URL,
      TEAPOT_REDIS_PREFIX: prefix,
      TEAPOT_SECRET_KEY: secretKey,
      LOG_LEVEL: 'info',
      SCHEDULER_ENABLED: 'false',
      ...overrides,
    }),
    async close() {
      await producer.close();
      await db.close();
      await testDb.drop();
      await deleteRedisPrefix(REDIS_URL, prefix);
    },
  };
}

export interface ProfileSpec {
  concurrency: number;
  requests?: number;
  durationS?: number;
  inputTokens: number;
  outputTokens: number;
  /** Relative spread of lengths (0 = all equal). */
  lengthJitter?: number;
}

/** Endpoints (distinct names, one serving configuration each) with one unscheduled profile each. */
export async function seedEndpoints(
  world: BenchWorld,
  count: number,
  baseUrl: string,
  profile: ProfileSpec,
): Promise<Array<{ endpointId: string; profileId: string }>> {
  const seeded = [];
  for (let i = 0; i < count; i++) {
    const endpoint = await world.db.prisma.endpoint.create({
      data: { name: `bench-endpoint-${randomUUID()}`, baseUrl, apiKind: 'chat', model: 'llama-8b' },
    });
    await world.db.prisma.servingConfig.create({
      data: { endpointId: endpoint.id, version: 1, engine: 'teapot-sim', gpuModel: 'H200', gpuCount: 8 },
    });
    const created = await world.db.prisma.profile.create({
      data: {
        name: `bench-profile-${i}`,
        endpointId: endpoint.id,
        workload: {
          kind: 'synthetic',
          inputTokens: profile.inputTokens,
          outputTokens: profile.outputTokens,
          lengthJitter: profile.lengthJitter ?? 0,
        },
        load: { kind: 'closed', concurrency: profile.concurrency },
        requestCount: profile.requests ?? null,
        durationS: profile.durationS ?? null,
        seed: i + 1,
        timeoutMs: 120_000,
        stallTimeoutMs: 30_000,
      },
    });
    seeded.push({ endpointId: endpoint.id, profileId: created.id });
  }
  return seeded;
}

/** Queued runs as POST /runs creates them (row with the profile snapshot, then the job). */
export async function queueRuns(world: BenchWorld, profileIds: string[]): Promise<string[]> {
  const runIds: string[] = [];
  for (const profileId of profileIds) {
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const config = await world.db.prisma.servingConfig.findFirst({
      where: { endpointId: profile.endpointId },
      orderBy: { version: 'desc' },
    });
    const run = await world.db.prisma.run.create({
      data: {
        endpointId: profile.endpointId,
        configId: config?.id ?? null,
        profileId,
        profileSnapshot: JSON.parse(JSON.stringify(profile)),
        trigger: 'manual',
      },
    });
    runIds.push(run.id);
  }
  await world.producer.enqueueRuns(runIds.map((runId) => ({ runId })));
  return runIds;
}

export interface FinishedRun {
  id: string;
  status: string;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  monotonicAnchorNs: bigint | null;
  outputTokensPerS: number | null;
  clientSaturated: boolean | null;
  eventLoopDelayP99Ms: number | null;
  workerId: string | null;
}

/** Polls until every run is final; throws with the processes' last lines when it takes too long. */
export async function waitForRuns(
  world: BenchWorld,
  runIds: string[],
  timeoutMs: number,
  processes: ServiceProcess[] = [],
): Promise<FinishedRun[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await world.db.prisma.run.findMany({
      where: { id: { in: runIds } },
      select: {
        id: true,
        status: true,
        error: true,
        startedAt: true,
        finishedAt: true,
        monotonicAnchorNs: true,
        outputTokensPerS: true,
        clientSaturated: true,
        eventLoopDelayP99Ms: true,
        workerId: true,
      },
    });
    if (runs.every((run) => ['succeeded', 'partial', 'failed', 'aborted'].includes(run.status))) return runs;
    const dead = processes.find((child) => !child.running);
    if (dead || Date.now() > deadline) {
      const why = dead ? `${dead.name} exited` : `runs not finished within ${timeoutMs / 1000} s`;
      throw new Error(`${why}:\n${processes.map((child) => child.recentOutput()).join('\n')}`);
    }
    await sleep(100);
  }
}

/** A service in its own process (worker or simulator), its output kept for error messages. */
export class ServiceProcess {
  readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiters = new Set<(line: string) => void>();
  private exited = false;

  constructor(
    readonly name: string,
    script: string,
    args: string[],
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.once('exit', () => (this.exited = true));
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        this.lines.push(line);
        if (this.lines.length > 30) this.lines.shift();
        for (const waiter of this.waiters) waiter(line);
      });
    }
  }

  get running(): boolean {
    return !this.exited;
  }

  recentOutput(): string {
    return this.lines.map((line) => `  [${this.name}] ${line}`).join('\n');
  }

  waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.recentOutput()}`),
        );
      }, timeoutMs);
      const waiter = (line: string) => {
        const match = pattern.exec(line);
        if (!match) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(match);
      };
      this.waiters.add(waiter);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(timer);
  }
}

export async function startWorkerProcess(
  world: BenchWorld,
  workerId: string,
  overrides: Record<string, string> = {},
): Promise<ServiceProcess> {
  const worker = new ServiceProcess(
    workerId,
    WORKER_MAIN,
    [],
    world.workerEnv({ WORKER_ID: workerId, ...overrides }),
  );
  await worker.waitForLine(new RegExp(`worker ${workerId} started`), 60_000);
  return worker;
}

/** The standalone simulator (packages/simulator/dist/main.js) on a free port. */
export async function startSimulatorProcess(
  args: string[],
): Promise<{ process: ServiceProcess; baseUrl: string }> {
  const port = await freePort();
  const simulator = new ServiceProcess('simulator', SIMULATOR_MAIN, ['--port', String(port), ...args], {
    PATH: process.env.PATH ?? '',
  });
  const [, baseUrl] = await simulator.waitForLine(/^teapot-sim listening on (\S+):/, 15_000);
  return { process: simulator, baseUrl };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function machineLine(loadBefore: number[], startedAt: number): string {
  return (
    `machine: ${cpus().length} cores, load average ${loadBefore[0].toFixed(2)} before, ${loadavg()[0].toFixed(2)} after; ` +
    `${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`
  );
}

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
    const { rows } = await world.db.pool.query<{ tokens: string }>(
      `SELECT coalesce(sum(output_tokens), 0) AS tokens FROM run_requests
       WHERE run_id = ANY($1::uuid[]) AND NOT warmup AND outcome = 'ok'`,
      [runIds],
    );
    const tokens = Number(rows[0].tokens);
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

/** The same runs, same concurrency per endpoint, measured in this process with nothing around them. */
async function measureAlone(baseUrl: string, shape: Shape): Promise<Figures> {
  const started = performance.now();
  const results: RunResult[] = [];
  for (let round = 0; round < shape.runsPerEndpoint; round++) {
    const roundResults = await Promise.all(
      Array.from({ length: shape.endpoints }, (_, i) =>
        runBenchmark({
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
  const world = await createWorld('throughput');
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
    'worker = one worker process (apps/worker/dist/main.js) measuring and persisting; alone = runBenchmark() in this process, no queue, no database.',
    "Added delay: stored (or measured) chunk arrival minus the simulator's write time, ms, over an even sample of every run's requests.",
    header(),
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
  lines.push(machineLine(loadBefore, startedAt));
  process.stdout.write(lines.join('\n') + '\n');
}

function header(): string {
  return [
    'shape, client'.padEnd(38),
    'runs'.padStart(5),
    'tokens'.padStart(10),
    'wall s'.padStart(7),
    'tokens/s'.padStart(9),
    'saturated'.padStart(9),
    'loop P99'.padStart(8),
    'chunks'.padStart(7),
    'lost'.padStart(5),
    'delay P50'.padStart(9),
    'P99'.padStart(7),
    'max'.padStart(7),
  ].join('  ');
}

function row(f: Figures): string {
  const d = f.accuracy.addedDelayMs;
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(3));
  return [
    f.label.padEnd(38),
    String(f.runs).padStart(5),
    String(f.tokens).padStart(10),
    f.wallS.toFixed(2).padStart(7),
    Math.round(f.tokensPerS).toString().padStart(9),
    String(f.saturatedRuns).padStart(9),
    f.loopP99Ms.toFixed(1).padStart(8),
    String(f.accuracy.chunks).padStart(7),
    String(f.accuracy.unmatched).padStart(5),
    ms(d?.p50).padStart(9),
    ms(d?.p99).padStart(7),
    ms(d?.max).padStart(7),
  ].join('  ');
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
