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
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  CHUNK_KIND,
  percentileSummary,
  runBenchmark,
  TRANSPORTS,
  type PercentileSummary,
  type RunResult,
  type Transport,
} from '@teapot/measure';
import { fetchGroundTruth } from '@teapot/simulator';
import { freePort } from '@teapot/testing';

const DEFAULT_LEVELS = [1, 64, 256, 512, 1024];
const OUTPUT_TOKENS = 50;
const INPUT_TOKENS = 32;
const STEP_MS = 20;
/** The goal (issue #13): the default transport's P99 within this factor of node-floor at every level... */
const FLOOR_FACTOR = 2;
/** ...and its median added delay under this. */
const TARGET_P50_MS = 0.5;
const LOOP_RESOLUTION_MS = 10;
const MODEL = 'llama-8b';
const REPO = join(__dirname, '..', '..');
const SIMULATOR_MAIN = join(REPO, 'packages', 'simulator', 'dist', 'main.js');
const RESULTS = join(REPO, 'bench', 'results', 'accuracy.json');
const C_FLOOR_SOURCE = join(REPO, 'bench', 'floor', 'epoll-reader.c');
/** With two cores or more, the simulator gets core 0 and every client core 1 (see pinCores). */
const SIMULATOR_CORE = 0;
const CLIENT_CORE = 1;

/**
 * teapot through each transport, the one-off-script baseline, and two floors: a Node reader that only
 * timestamps each read (what any Node client can reach here) and the same in C (what the machine allows).
 */
type ClientName = Transport | 'baseline' | 'node-floor' | 'c-floor';
function isTransport(client: ClientName): client is Transport {
  return (TRANSPORTS as readonly string[]).includes(client);
}

function label(client: ClientName): string {
  return isTransport(client) ? `teapot/${client}` : client;
}

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
  client: ClientName;
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
  /** |measured gap - written gap| over consecutive token chunks of a stream: the error an ITL carries. */
  gapErrorMs: PercentileSummary | null;
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
  const argv = process.argv.slice(2);
  const levels = levelsFromArgs(argv);
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const pinned = argv.includes('--no-pin') ? null : pinCores();
  const cFloor = await buildCFloor();
  const clients: ClientName[] = [...TRANSPORTS, 'baseline', 'node-floor'];
  if (cFloor !== null) clients.push('c-floor');
  const port = await freePort();
  const simulator = await startSeparateSimulator(port, pinned !== null);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const figures: ClientFigures[] = [];
  try {
    for (const streams of levels) {
      for (const client of clients) {
        const measured = await measureLevel(baseUrl, client, streams, cFloor);
        figures.push(measured);
        process.stderr.write(`${formatRow(measured)}\n`);
      }
    }
  } finally {
    await stopProcess(simulator);
  }

  const loadAfter = loadavg();
  process.stdout.write(renderTable(levels, figures));
  const verdicts = levels.flatMap((streams) =>
    TRANSPORTS.map((client) => verdictAt(figures, streams, client)),
  );
  process.stdout.write(
    `\ngoal: P99 added delay and P99 gap error within ${FLOOR_FACTOR}x of node-floor, P50 < ${TARGET_P50_MS} ms:\n` +
      verdicts
        .map((v) => `  ${String(v.streams).padStart(5)} streams ${label(v.client)}: ${v.text}`)
        .join('\n') +
      `\nmachine: ${cpus().length} cores, ${pinned ?? 'not pinned'}; load average ${loadBefore[0].toFixed(2)} before, ` +
      `${loadAfter[0].toFixed(2)} after; ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all\n`,
  );

  await mkdir(join(REPO, 'bench', 'results'), { recursive: true });
  const document = {
    benchmark: 'accuracy',
    date: new Date(startedAt).toISOString(),
    node: process.version,
    cores: cpus().length,
    pinned,
    loadAverage: { before: loadBefore, after: loadAfter },
    setup: { stepMs: STEP_MS, outputTokens: OUTPUT_TOKENS, inputTokens: INPUT_TOKENS, levels },
    goal: { floorFactor: FLOOR_FACTOR, p50Ms: TARGET_P50_MS, verdicts },
    levels: levels.map((streams) => ({
      streams,
      clients: figures.filter((f) => f.streams === streams),
    })),
  };
  await writeFile(RESULTS, JSON.stringify(document, null, 2) + '\n');
  process.stdout.write(`figures written to ${RESULTS}\n`);
}

async function measureLevel(
  baseUrl: string,
  client: ClientName,
  streams: number,
  cFloor: string | null,
): Promise<ClientFigures> {
  const requests = requestsFor(streams);
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const started = performance.now();
  loop.enable();
  let run: ClientRun;
  if (isTransport(client)) run = await runTeapot(baseUrl, streams, requests, client);
  else if (client === 'baseline') run = await runBaseline(baseUrl, streams, requests);
  else if (client === 'node-floor') run = await runNodeFloor(baseUrl, streams, requests);
  else run = await runCFloor(cFloor!, baseUrl, streams, requests);
  loop.disable();
  const wallS = (performance.now() - started) / 1000;

  const truth = await fetchGroundTruth(
    baseUrl,
    run.streams.map((s) => s.responseId),
  );
  const delaysMs: number[] = [];
  const fromStartMs: number[] = [];
  const stepsMs: number[] = [];
  const gapErrorsMs: number[] = [];
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
      if (i === 0) return;
      const writtenGapNs = event.writtenNs - sent[i - 1].writtenNs;
      stepsMs.push(Number(writtenGapNs) / 1e6);
      const measuredGapNs = stream.arrivalsNs[i] - stream.arrivalsNs[i - 1];
      gapErrorsMs.push(Math.abs(Number(measuredGapNs - writtenGapNs)) / 1e6);
    });
  }
  return {
    client,
    streams,
    requests,
    failed: run.failed,
    chunks: delaysMs.length,
    unmatched,
    addedDelayMs: percentileSummary(delaysMs),
    earlyShare: delaysMs.length === 0 ? 0 : delaysMs.filter((d) => d < 0).length / delaysMs.length,
    fromWriteStartMs: percentileSummary(fromStartMs),
    gapErrorMs: percentileSummary(gapErrorsMs),
    eventLoopDelayMs: { p99: loopExcessMs(loop.percentile(99)), max: loopExcessMs(loop.max) },
    simulatorStepP50Ms: percentileSummary(stepsMs)?.p50 ?? null,
    wallS,
  };
}

interface Verdict {
  streams: number;
  client: Transport;
  met: boolean | null;
  text: string;
}

/** One transport at one level against the goal, with the figures it was judged on. */
function verdictAt(figures: ClientFigures[], streams: number, client: Transport): Verdict {
  const at = (name: ClientName) => figures.find((f) => f.client === name && f.streams === streams);
  const teapot = at(client);
  const floor = at('node-floor');
  const p50 = teapot?.addedDelayMs?.p50;
  const p99 = teapot?.addedDelayMs?.p99;
  const gap = teapot?.gapErrorMs?.p99;
  const floorP99 = floor?.addedDelayMs?.p99;
  const floorGap = floor?.gapErrorMs?.p99;
  if ([p50, p99, gap, floorP99, floorGap].some((v) => v === undefined))
    return { streams, client, met: null, text: 'no data' };
  const met = p50! < TARGET_P50_MS && p99! <= FLOOR_FACTOR * floorP99! && gap! <= FLOOR_FACTOR * floorGap!;
  const text =
    `${met ? 'met' : 'MISSED'} (P50 ${ms(p50)}; P99 ${ms(p99)} vs floor ${ms(floorP99)} = ${(p99! / floorP99!).toFixed(1)}x; ` +
    `gap P99 ${ms(gap)} vs floor ${ms(floorGap)} = ${(gap! / floorGap!).toFixed(1)}x)`;
  return { streams, client, met, text };
}

/** The histogram holds whole timer periods: the delay is what exceeds one (as @teapot/measure reports it). */
function loopExcessMs(ns: number): number {
  return Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
}

interface ClientRun {
  streams: MeasuredStream[];
  failed: number;
}

async function runTeapot(
  baseUrl: string,
  streams: number,
  requests: number,
  transport: Transport,
): Promise<ClientRun> {
  const result: RunResult = await runBenchmark({
    transport,
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
/** The request every client but teapot sends. */
const PLAIN_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: 'user', content: 'word '.repeat(INPUT_TOKENS) }],
  max_tokens: OUTPUT_TOKENS,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
});

async function runBaseline(baseUrl: string, streams: number, requests: number): Promise<ClientRun> {
  const measured: MeasuredStream[] = [];
  let issued = 0;
  let failed = 0;
  const body = PLAIN_BODY;
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

/** Request bytes for the floor readers, which speak HTTP/1.1 themselves. */
function plainRequest(baseUrl: string): Buffer {
  const url = new URL(`${baseUrl}/chat/completions`);
  return Buffer.from(
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(PLAIN_BODY)}\r\n\r\n${PLAIN_BODY}`,
  );
}

const CONTENT_MARK = Buffer.from('"content":"');
const ID_MARK = Buffer.from('"id":"');
const STREAM_END = Buffer.from('\r\n0\r\n\r\n');

/**
 * What any Node client can reach here: sockets read with `onread` into one buffer, a timestamp per
 * read, content chunks found with Buffer.indexOf, times kept in a typed array; no HTTP parsing at all.
 */
async function runNodeFloor(baseUrl: string, streams: number, requests: number): Promise<ClientRun> {
  const { port } = new URL(baseUrl);
  const request = plainRequest(baseUrl);
  const times = new Float64Array(requests * (OUTPUT_TOKENS + 8));
  const owners = new Int32Array(times.length);
  const ids: string[] = [];
  const shared = Buffer.allocUnsafe(64 * 1024);
  const originNs = process.hrtime.bigint();
  let count = 0;
  let started = 0;
  let done = 0;
  await new Promise<void>((resolve, reject) => {
    const sockets: net.Socket[] = [];
    for (let i = 0; i < Math.min(streams, requests); i++) {
      let current = -1;
      const socket = net.connect({
        host: '127.0.0.1',
        port: Number(port),
        onread: {
          buffer: shared,
          callback: (length: number, buffer: Uint8Array) => {
            const ns = Number(process.hrtime.bigint() - originNs);
            const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, length);
            if (ids[current] === undefined) {
              const at = bytes.indexOf(ID_MARK);
              if (at >= 0) ids[current] = bytes.toString('latin1', at + 6, bytes.indexOf(0x22, at + 6));
            }
            for (let at = bytes.indexOf(CONTENT_MARK); at >= 0; at = bytes.indexOf(CONTENT_MARK, at + 11)) {
              if (bytes[at + 11] === 0x22) continue;
              times[count] = ns;
              owners[count++] = current;
            }
            const ended = bytes.indexOf(STREAM_END) >= 0 || (bytes[0] === 0x30 && bytes[1] === 0x0d);
            if (!ended) return true;
            if (++done === requests) {
              for (const s of sockets) s.destroy();
              resolve();
            } else if (started < requests) {
              current = started++;
              socket.write(request);
            }
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.once('connect', () => {
        current = started++;
        socket.write(request);
      });
      socket.once('error', reject);
      sockets.push(socket);
    }
  });
  return { streams: groupArrivals(count, (k) => [ids[owners[k]], originNs + BigInt(times[k])]), failed: 0 };
}

/** The floor of the machine: the C reader in bench/floor, pinned like every client. */
async function runCFloor(
  binary: string,
  baseUrl: string,
  streams: number,
  requests: number,
): Promise<ClientRun> {
  const { port } = new URL(baseUrl);
  const args = [String(port), String(Math.min(streams, requests)), String(requests), PLAIN_BODY];
  const output = await new Promise<string>((resolve, reject) => {
    execFile(binary, args, { maxBuffer: 1 << 28 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
  const lines = output.trim().split('\n');
  return {
    streams: groupArrivals(lines.length, (k) => {
      const [id, ns] = lines[k].split(' ');
      return [id, BigInt(ns)];
    }),
    failed: 0,
  };
}

function groupArrivals(count: number, arrival: (k: number) => [string, bigint]): MeasuredStream[] {
  const byId = new Map<string, MeasuredStream>();
  for (let k = 0; k < count; k++) {
    const [responseId, ns] = arrival(k);
    let stream = byId.get(responseId);
    if (stream === undefined) {
      stream = { responseId, arrivalsNs: [], tokens: null };
      byId.set(responseId, stream);
    }
    stream.arrivalsNs.push(ns);
  }
  return [...byId.values()];
}

/** Compiles the C floor into a temporary directory; null (and the row left out) without a C compiler. */
async function buildCFloor(): Promise<string | null> {
  if (process.platform === 'win32') return null;
  const binary = join(await mkdtemp(join(tmpdir(), 'teapot-floor-')), 'epoll-reader');
  const built = spawnSync('cc', ['-O2', '-o', binary, C_FLOOR_SOURCE], { stdio: 'ignore' });
  if (built.status !== 0) {
    process.stderr.write('accuracy: no C compiler (cc), so the c-floor row is left out\n');
    return null;
  }
  return binary;
}

/**
 * On Linux with two cores or more: this process (every thread, and the C floor it starts) on one core,
 * the simulator on another. Otherwise the scheduler may run a client on the simulator's core, where it
 * waits for the simulator's whole write burst: that is the scheduler's delay, not the client's.
 */
function pinCores(): string | null {
  if (process.platform !== 'linux' || cpus().length < 2) return null;
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', String(CLIENT_CORE), String(process.pid)], {
    stdio: 'ignore',
  });
  if (pinned.status !== 0) return null;
  return `simulator on core ${SIMULATOR_CORE}, clients on core ${CLIENT_CORE}`;
}

async function startSeparateSimulator(port: number, pinned: boolean): Promise<ChildProcess> {
  // Every step takes STEP_MS whatever the batch; one chunk holds any prompt; no jitter.
  const flags = ['--step-ms', String(STEP_MS), '--max-batch', '4096', '--chunked-prefill'];
  const exact = ['--chunk-size', String(1 << 20), '--jitter', '0'];
  const command = [process.execPath, SIMULATOR_MAIN, '--port', String(port), ...flags, ...exact];
  if (pinned) command.unshift('taskset', '-c', String(SIMULATOR_CORE));
  const child = spawn(command[0], command.slice(1), {
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
  ['client', (f) => label(f.client)],
  ['chunks', (f) => String(f.chunks)],
  ['P50', (f) => ms(f.addedDelayMs?.p50)],
  ['P99', (f) => ms(f.addedDelayMs?.p99)],
  ['max', (f) => ms(f.addedDelayMs?.max)],
  ['early', (f) => `${(100 * f.earlyShare).toFixed(1)}%`],
  ['P99 start', (f) => ms(f.fromWriteStartMs?.p99)],
  ['gap P99', (f) => ms(f.gapErrorMs?.p99)],
  ['loop P99', (f) => ms(f.eventLoopDelayMs.p99)],
  ['loop max', (f) => ms(f.eventLoopDelayMs.max)],
  ['sim step', (f) => ms(f.simulatorStepP50Ms)],
  ['lost', (f) => String(f.failed + f.unmatched)],
];

function formatCells(cells: string[]): string {
  return cells.map((cell, i) => (i === 1 ? cell.padEnd(14) : cell.padStart(9))).join(' ');
}

function formatRow(f: ClientFigures): string {
  return formatCells(COLUMNS.map(([, cell]) => cell(f)));
}

function renderTable(levels: number[], figures: ClientFigures[]): string {
  const lines = [
    '',
    "Added delay per token chunk, ms: client timestamp minus the simulator's writtenNs (P50, P99, max);",
    'early: chunks timestamped before writtenNs (loopback delivers inside the write call; the figures can dip below 0);',
    'P99 start: from just before the write (an upper bound); gap P99: |measured - written gap| of consecutive chunks;',
    'loop: client event-loop delay; sim step: decode step P50.',
    formatCells(COLUMNS.map(([header]) => header)),
  ];
  for (const streams of levels) {
    const rows = figures.filter((f) => f.streams === streams);
    for (const f of rows) lines.push(formatRow(f));
    const baseline = rows.find((f) => f.client === 'baseline');
    const ratios = TRANSPORTS.map((client) => {
      const r = ratio(
        baseline,
        rows.find((f) => f.client === client),
      );
      return `${label(client)} ${r === null ? '-' : `${r.toFixed(1)}x`}`;
    });
    lines.push(`${''.padStart(9)} P99 baseline/teapot: ${ratios.join(', ')}`);
  }
  return lines.join('\n') + '\n';
}

main().catch((error: unknown) => {
  process.stderr.write(
    `accuracy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
