/**
 * Measurement accuracy: how late does the client timestamp a token chunk, compared with the
 * instant the simulator wrote it? Both sides read CLOCK_MONOTONIC (process.hrtime.bigint()), so
 * the difference is the delay the client adds (kernel + event loop + its own parsing).
 *
 * The simulator runs in a separate process at a fixed ~20 ms per decode step (~50 tokens/s per
 * stream, whatever the batch), and teapot's client is compared with a baseline written the way
 * one-off scripts are: fetch + TextDecoder + line splitting + JSON.parse, timestamped after parsing.
 * The simulator is its own CLI with `--step-ms 20`: a GPU with unlimited bandwidth and FLOPs plus a
 * 20 ms step overhead.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench accuracy [--levels 1,64,512]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CHUNK_KIND, describe, runBenchmark, type PercentileSummary, type RunResult } from '@teapot/measure';
import { fetchGroundTruth } from '@teapot/simulator';
import { freePort } from './throughput';

const DEFAULT_LEVELS = [1, 64, 256, 512, 1024];
const OUTPUT_TOKENS = 50;
const INPUT_TOKENS = 32;
const STEP_MS = 20;
const TARGET_P99_MS = 1;
const LOOP_RESOLUTION_MS = 10;
const TARGET_STREAMS = 512;
const MODEL = 'llama-8b';
const REPO = join(__dirname, '..', '..');
const SIMULATOR_MAIN = join(REPO, 'packages', 'simulator', 'dist', 'main.js');
const RESULTS = join(REPO, 'bench', 'results', 'accuracy.json');

/** Enough requests for a few thousand token samples, bounded so one level takes seconds. */
function requestsFor(streams: number): number {
  return streams === 1 ? 20 : Math.min(2 * streams, 1024);
}

/** Arrival times of the token-carrying chunks of one response, on the monotonic clock. */
interface MeasuredStream {
  responseId: string;
  arrivalsNs: bigint[];
  /** Tokens per chunk as the client counted them; null where it does not count (the baseline). */
  tokens: number[] | null;
}

interface ClientFigures {
  client: 'teapot' | 'baseline';
  streams: number;
  requests: number;
  failed: number;
  /** Token chunks compared with the simulator's ground truth. */
  chunks: number;
  /** Streams whose chunks did not line up one to one with the ground truth (left out). */
  unmatched: number;
  /** Arrival minus the simulator's writtenNs (just after its write returned). */
  addedDelayMs: PercentileSummary | null;
  /**
   * Share of chunks timestamped before writtenNs: on loopback the kernel hands the bytes to the reader
   * inside the simulator's write call, so a client on the other core can see them before that call returns.
   */
  earlyShare: number;
  /** Arrival minus writeStartNs (just before the write): an upper bound of the delay the client adds. */
  fromWriteStartMs: PercentileSummary | null;
  eventLoopDelayMs: { p99: number; max: number };
  /** Median gap between the simulator's writes of consecutive token chunks: the decode step it ran at. */
  simulatorStepP50Ms: number | null;
  wallS: number;
}

/** `--levels 1,64` runs only those stream counts (a quick look); the default is every level. */
function levelsFromArgs(argv: string[]): number[] {
  const at = argv.indexOf('--levels');
  if (at < 0) return DEFAULT_LEVELS;
  const levels = (argv[at + 1] ?? '').split(',').map(Number);
  if (levels.length === 0 || !levels.every((n) => Number.isInteger(n) && n >= 1))
    throw new Error(`--levels: expected stream counts like 1,64,512, got "${argv[at + 1] ?? ''}"`);
  return levels;
}

async function main(): Promise<void> {
  const levels = levelsFromArgs(process.argv.slice(2));
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const port = await freePort();
  const simulator = await startSeparateSimulator(port);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const figures: ClientFigures[] = [];
  try {
    for (const streams of levels) {
      for (const client of ['teapot', 'baseline'] as const) {
        const measured = await measureLevel(baseUrl, client, streams);
        figures.push(measured);
        process.stderr.write(`${formatRow(measured)}\n`);
      }
    }
  } finally {
    await stopProcess(simulator);
  }

  const loadAfter = loadavg();
  process.stdout.write(renderTable(levels, figures));
  const atTarget = figures.find((f) => f.client === 'teapot' && f.streams === TARGET_STREAMS);
  const p99 = atTarget?.addedDelayMs?.p99;
  const verdict = p99 === undefined ? 'no data' : p99 < TARGET_P99_MS ? 'met' : 'MISSED';
  process.stdout.write(
    `\ntarget: teapot P99 added delay < ${TARGET_P99_MS} ms at ${TARGET_STREAMS} streams: ${verdict}` +
      `${p99 === undefined ? '' : ` (${p99.toFixed(3)} ms)`}\n` +
      `machine: ${cpus().length} cores, load average ${loadBefore[0].toFixed(2)} before, ${loadAfter[0].toFixed(2)} after; ` +
      `${((Date.now() - startedAt) / 1000).toFixed(0)} s in all\n`,
  );

  await mkdir(join(REPO, 'bench', 'results'), { recursive: true });
  const document = {
    benchmark: 'accuracy',
    date: new Date(startedAt).toISOString(),
    node: process.version,
    cores: cpus().length,
    loadAverage: { before: loadBefore, after: loadAfter },
    setup: { stepMs: STEP_MS, outputTokens: OUTPUT_TOKENS, inputTokens: INPUT_TOKENS, levels },
    target: { streams: TARGET_STREAMS, p99Ms: TARGET_P99_MS, verdict },
    levels: levels.map((streams) => {
      const teapot = figures.find((f) => f.streams === streams && f.client === 'teapot');
      const baseline = figures.find((f) => f.streams === streams && f.client === 'baseline');
      return { streams, teapot, baseline, p99Ratio: ratio(baseline, teapot) };
    }),
  };
  await writeFile(RESULTS, JSON.stringify(document, null, 2) + '\n');
  process.stdout.write(`figures written to ${RESULTS}\n`);
}

async function measureLevel(
  baseUrl: string,
  client: 'teapot' | 'baseline',
  streams: number,
): Promise<ClientFigures> {
  const requests = requestsFor(streams);
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const started = performance.now();
  loop.enable();
  const run =
    client === 'teapot'
      ? await runTeapot(baseUrl, streams, requests)
      : await runBaseline(baseUrl, streams, requests);
  loop.disable();
  const wallS = (performance.now() - started) / 1000;

  const truth = await fetchGroundTruth(
    baseUrl,
    run.streams.map((s) => s.responseId),
  );
  const delaysMs: number[] = [];
  const fromStartMs: number[] = [];
  const stepsMs: number[] = [];
  let unmatched = 0;
  for (const stream of run.streams) {
    const sent = truth.get(stream.responseId)?.events.filter((e) => e.kind === 'content' && e.tokens > 0);
    const miscounted = stream.tokens !== null && sent?.some((e, i) => e.tokens !== stream.tokens?.[i]);
    if (!sent || sent.length !== stream.arrivalsNs.length || miscounted) {
      unmatched++;
      continue;
    }
    sent.forEach((event, i) => {
      delaysMs.push(Number(stream.arrivalsNs[i] - event.writtenNs) / 1e6);
      fromStartMs.push(Number(stream.arrivalsNs[i] - event.writeStartNs) / 1e6);
      if (i > 0) stepsMs.push(Number(event.writtenNs - sent[i - 1].writtenNs) / 1e6);
    });
  }
  return {
    client,
    streams,
    requests,
    failed: run.failed,
    chunks: delaysMs.length,
    unmatched,
    addedDelayMs: describe(delaysMs),
    earlyShare: delaysMs.length === 0 ? 0 : delaysMs.filter((d) => d < 0).length / delaysMs.length,
    fromWriteStartMs: describe(fromStartMs),
    eventLoopDelayMs: { p99: loopExcessMs(loop.percentile(99)), max: loopExcessMs(loop.max) },
    simulatorStepP50Ms: describe(stepsMs)?.p50 ?? null,
    wallS,
  };
}

/** The histogram holds whole timer periods: the delay is what exceeds one (as @teapot/measure reports it). */
function loopExcessMs(ns: number): number {
  return Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
}

interface ClientRun {
  streams: MeasuredStream[];
  failed: number;
}

async function runTeapot(baseUrl: string, streams: number, requests: number): Promise<ClientRun> {
  const result: RunResult = await runBenchmark({
    target: { baseUrl, apiKind: 'chat', model: MODEL },
    workload: { kind: 'synthetic', inputTokens: INPUT_TOKENS, outputTokens: OUTPUT_TOKENS },
    load: { kind: 'closed', concurrency: streams },
    requests,
    seed: 1,
    timeoutMs: 120_000,
    forceOutputLength: true,
  });
  const anchorNs = BigInt(result.monotonicAnchorNs);
  const measured: MeasuredStream[] = [];
  for (const record of result.requests) {
    if (record.outcome !== 'ok' || record.responseId === null) continue;
    const arrivalsNs: bigint[] = [];
    const tokens: number[] = [];
    for (let i = 0; i < record.chunkOffsetsUs.length; i++) {
      if (record.chunkKinds[i] === CHUNK_KIND.empty || record.chunkTokens[i] === 0) continue;
      arrivalsNs.push(anchorNs + BigInt(record.startUs + record.chunkOffsetsUs[i]) * 1000n);
      tokens.push(record.chunkTokens[i]);
    }
    measured.push({ responseId: record.responseId, arrivalsNs, tokens });
  }
  return { streams: measured, failed: result.summary.requests.failed };
}

/** The one-off-script client: fetch, decode, split lines, parse, and only then read the clock. */
async function runBaseline(baseUrl: string, streams: number, requests: number): Promise<ClientRun> {
  const measured: MeasuredStream[] = [];
  let issued = 0;
  let failed = 0;
  const body = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: 'word '.repeat(INPUT_TOKENS) }],
    max_tokens: OUTPUT_TOKENS,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  });
  const worker = async () => {
    while (issued < requests) {
      issued++;
      try {
        measured.push(await baselineStream(`${baseUrl}/chat/completions`, body));
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: streams }, worker));
  return { streams: measured, failed };
}

async function baselineStream(url: string, body: string): Promise<MeasuredStream> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const stream: MeasuredStream = { responseId: '', arrivalsNs: [], tokens: null };
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(6));
      const now = process.hrtime.bigint();
      stream.responseId ||= chunk.id;
      if (chunk.choices?.[0]?.delta?.content) stream.arrivalsNs.push(now);
    }
  }
  return stream;
}

async function startSeparateSimulator(port: number): Promise<ChildProcess> {
  // Every step takes STEP_MS whatever the batch; one chunk holds any prompt; no jitter.
  const flags = ['--step-ms', String(STEP_MS), '--max-batch', '4096', '--chunked-prefill'];
  const exact = ['--chunk-size', String(1 << 20), '--jitter', '0'];
  const child = spawn(process.execPath, [SIMULATOR_MAIN, '--port', String(port), ...flags, ...exact], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A benchmark stopped by Ctrl-C or `timeout` must not leave its simulator running.
  process.once('exit', () => child.kill('SIGKILL'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the simulator exited with code ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/v1/models`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopProcess(child);
  throw new Error('the simulator did not answer /v1/models within 15 s');
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function ratio(baseline: ClientFigures | undefined, teapot: ClientFigures | undefined): number | null {
  const b = baseline?.addedDelayMs?.p99;
  const t = teapot?.addedDelayMs?.p99;
  return b === undefined || t === undefined || t <= 0 ? null : b / t;
}

const ms = (value: number | null | undefined): string => (value == null ? '-' : value.toFixed(3));

const COLUMNS: Array<[header: string, cell: (f: ClientFigures) => string]> = [
  ['streams', (f) => String(f.streams)],
  ['client', (f) => f.client],
  ['chunks', (f) => String(f.chunks)],
  ['P50', (f) => ms(f.addedDelayMs?.p50)],
  ['P99', (f) => ms(f.addedDelayMs?.p99)],
  ['max', (f) => ms(f.addedDelayMs?.max)],
  ['early', (f) => `${(100 * f.earlyShare).toFixed(1)}%`],
  ['P99 start', (f) => ms(f.fromWriteStartMs?.p99)],
  ['loop P99', (f) => ms(f.eventLoopDelayMs.p99)],
  ['loop max', (f) => ms(f.eventLoopDelayMs.max)],
  ['sim step', (f) => ms(f.simulatorStepP50Ms)],
  ['lost', (f) => String(f.failed + f.unmatched)],
];

function formatCells(cells: string[]): string {
  return cells.map((cell, i) => (i === 1 ? cell.padEnd(8) : cell.padStart(9))).join(' ');
}

function formatRow(f: ClientFigures): string {
  return formatCells(COLUMNS.map(([, cell]) => cell(f)));
}

function renderTable(levels: number[], figures: ClientFigures[]): string {
  const lines = [
    '',
    "Added delay per token chunk, ms: client timestamp minus the simulator's writtenNs (P50, P99, max);",
    'early: chunks timestamped before writtenNs (loopback delivers inside the write call; the figures can dip below 0);',
    'P99 start: from just before the write (an upper bound); loop: client event-loop delay; sim step: decode step P50.',
    formatCells(COLUMNS.map(([header]) => header)),
  ];
  for (const streams of levels) {
    const teapot = figures.find((f) => f.streams === streams && f.client === 'teapot');
    const baseline = figures.find((f) => f.streams === streams && f.client === 'baseline');
    for (const f of [teapot, baseline]) if (f) lines.push(formatRow(f));
    const r = ratio(baseline, teapot);
    lines.push(`${''.padStart(9)} P99 baseline/teapot: ${r === null ? '-' : `${r.toFixed(1)}x`}`);
  }
  return lines.join('\n') + '\n';
}

main().catch((error: unknown) => {
  process.stderr.write(
    `accuracy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
