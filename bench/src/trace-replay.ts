/**
 * Whether a trace replay keeps its schedule: a bursty Mooncake-shaped trace (gamma gaps, shape 0.5,
 * varied lengths) replayed at its own rate against the simulator, and as the baseline a plain Poisson
 * schedule at the same mean rate, count and mean lengths, alternated A B A B in one invocation so drift
 * of the machine hits both alike. Each run is measured on its own thread, as the worker measures. Prints
 * each run's send lateness (write time minus scheduled time: P50, P99, max, sends over 1 ms late) beside
 * the measuring thread's event-loop delay P99 (a send cannot be more punctual than the loop that makes
 * it: on a loaded machine both show the machine), the median P99 of each side and their ratio, against
 * the target P99 < 1 ms. Beside each run, this process's main thread waits out the same schedule with
 * the open loop's own code and sends nothing (the floor): how punctual this machine lets a thread be
 * under the run's load; the client's P99 over the floor's is what the client adds.
 *
 * The simulator stands in for a server on another machine, so it runs at the lowest CPU priority
 * (nice 19): on one machine, each request written to it over loopback wakes it on the writer's core,
 * and at equal priority it took that core from the measuring thread for up to 3 ms (P90 of a write
 * 1 ms instead of 0.03 ms), which shows as the next send's lateness. `--simulator-nice 0` measures
 * that colocated case.
 *
 *   npm run bench:trace-replay [-- --pairs 2 --requests 400 --rate 20 --speed 1 --simulator-nice 19]
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import {
  arrivalSchedule,
  loadTrace,
  mulberry32,
  percentile,
  runBenchmarkInThread,
  runOpenLoop,
  type RunOptions,
  type SendLateness,
  type Workload,
} from '@teapot/measure';
import {
  intOption,
  machineLine,
  median,
  positiveIntOption as option,
  reniceProcess,
  startSimulatorProcess,
  textTable,
} from './harness';

const PAIRS = option('pairs', 2);
const REQUESTS = option('requests', 400);
const RATE_PER_S = option('rate', 20);
const SPEED = option('speed', 1);
const SIMULATOR_NICE = Math.min(19, intOption('simulator-nice', 19, 0));
const TARGET_P99_MS = 1;

/** The trace as a file would hold it (Mooncake's fields), at RATE_PER_S / SPEED so the replay runs at RATE_PER_S. */
function traceText(): string {
  const times = arrivalSchedule({
    ratePerS: RATE_PER_S / SPEED,
    arrival: 'gamma',
    burstiness: 0.5,
    count: REQUESTS,
    seed: 11,
  });
  const random = mulberry32(12);
  let text = '';
  for (const atUs of times) {
    const input = 64 + Math.floor(random() * 960);
    const output = 16 + Math.floor(random() * 96);
    text += `${JSON.stringify({ timestamp: Math.round(atUs / 1000), input_length: input, output_length: output })}\n`;
  }
  return text;
}

interface Lateness {
  late: number;
  p99Ms: number;
}

const nowUs = () => Number(process.hrtime.bigint()) / 1000;

/**
 * The floor: the schedule `timesUs` waited out on this thread by the open loop with no request sent,
 * from the run's first progress report (its load phase has begun) until `finished()`.
 */
async function floorLateness(timesUs: Float64Array, finished: () => boolean): Promise<Lateness> {
  const lateness: number[] = [];
  await runOpenLoop({ timesUs, promptAt: null }, nowUs(), undefined, {
    done: finished,
    nowUs,
    active: () => 0,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms ?? 1)),
    sendDueIn: () => undefined,
    start: (scheduledUs, _prompt, ended) => {
      lateness.push((nowUs() - scheduledUs) / 1000);
      ended();
    },
  });
  const sorted = lateness.sort((a, b) => a - b);
  return {
    late: sorted.filter((ms) => ms > 1).length,
    p99Ms: sorted.length > 0 ? percentile(sorted, 0.99) : 0,
  };
}

/** A run in its measuring thread, and the floor beside it on this thread. */
async function runWithFloor(
  options: RunOptions,
  timesUs: Float64Array,
): Promise<{ result: Awaited<ReturnType<typeof runBenchmarkInThread>>; floor: Lateness }> {
  let finished = false;
  let floor: Promise<Lateness> | null = null;
  const result = await runBenchmarkInThread({
    ...options,
    onProgress: () => {
      floor ??= floorLateness(timesUs, () => finished);
    },
  }).finally(() => (finished = true));
  return { result, floor: await (floor ?? Promise.resolve({ late: 0, p99Ms: 0 })) };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const text = traceText();
  const trace = loadTrace(text, { sha256: createHash('sha256').update(text).digest('hex'), speed: SPEED });
  if (trace.kind !== 'trace') throw new Error('not a trace');
  const meanInput = trace.requests.reduce((sum, r) => sum + r.inputTokens, 0) / trace.requests.length;
  const meanOutput = trace.requests.reduce((sum, r) => sum + r.outputTokens, 0) / trace.requests.length;
  const poisson: Workload = {
    kind: 'synthetic',
    inputTokens: Math.round(meanInput),
    outputTokens: Math.round(meanOutput),
    lengthJitter: 0.9,
  };
  const simulator = await startSimulatorProcess(['--gpu', 'h100-sxm', '--model', 'llama-8b', '--seed', '1']);
  reniceProcess(simulator.process.child.pid!, SIMULATOR_NICE);
  const traceTimesUs = Float64Array.from(trace.requests, (r) => (r.atMs * 1000) / SPEED);
  const rows: Array<{
    side: 'A' | 'B';
    lateness: SendLateness;
    ok: number;
    loopP99Ms: number;
    floor: Lateness;
  }> = [];
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const side of ['A', 'B'] as const) {
        const options: RunOptions = {
          target: { baseUrl: simulator.baseUrl, apiKind: 'chat', model: 'llama-8b' },
          workload: side === 'A' ? trace : poisson,
          load: { kind: 'open', ratePerS: RATE_PER_S, arrival: 'poisson' },
          requests: REQUESTS,
          seed: 7 + pair,
          timeoutMs: 120_000,
          stallTimeoutMs: 30_000,
          forceOutputLength: true,
        };
        const timesUs =
          side === 'A'
            ? traceTimesUs
            : arrivalSchedule({ ratePerS: RATE_PER_S, arrival: 'poisson', count: REQUESTS, seed: 7 + pair });
        const { result, floor } = await runWithFloor(options, timesUs);
        const { summary, client } = result;
        if (summary.sendLateness === undefined) throw new Error('an open-loop run without send lateness');
        const loopP99Ms = client.eventLoopDelayMs.p99;
        rows.push({ side, lateness: summary.sendLateness, ok: summary.requests.succeeded, loopP99Ms, floor });
      }
    }
  } finally {
    await simulator.process.stop();
  }
  const table = textTable([
    ['run', 4],
    ['schedule', 22],
    ['ok', 5],
    ['late>1ms', 9],
    ['P50 ms', 8],
    ['P99 ms', 8],
    ['max ms', 8],
    ['loop P99 ms', 12],
    ['floor late', 11],
    ['floor P99 ms', 13],
  ]);
  const span = trace.kind === 'trace' ? trace.source!.spanS : 0;
  console.log(
    `trace replay: ${PAIRS} pairs of ${REQUESTS} requests at ${RATE_PER_S}/s (trace span ${span.toFixed(1)} s at speed ${SPEED}, ` +
      `gamma shape 0.5 gaps; lengths ${Math.round(meanInput)}/${Math.round(meanOutput)} tokens on average; ` +
      `simulator at nice ${SIMULATOR_NICE})`,
  );
  console.log(table.header);
  rows.forEach((row, i) =>
    console.log(
      table.line([
        `${(i >> 1) + 1}${row.side}`,
        row.side === 'A' ? 'trace (bursty)' : 'poisson (baseline)',
        String(row.ok),
        String(row.lateness.late),
        row.lateness.p50Ms.toFixed(3),
        row.lateness.p99Ms.toFixed(3),
        row.lateness.maxMs.toFixed(3),
        row.loopP99Ms.toFixed(3),
        String(row.floor.late),
        row.floor.p99Ms.toFixed(3),
      ]),
    ),
  );
  const a = median(rows.filter((r) => r.side === 'A').map((r) => r.lateness.p99Ms));
  const b = median(rows.filter((r) => r.side === 'B').map((r) => r.lateness.p99Ms));
  const floor = median(rows.filter((r) => r.side === 'A').map((r) => r.floor.p99Ms));
  console.log(
    `median P99 send lateness: trace ${a.toFixed(3)} ms, poisson ${b.toFixed(3)} ms (ratio ${(a / b).toFixed(2)}); ` +
      `target < ${TARGET_P99_MS} ms: ${a < TARGET_P99_MS ? 'met' : 'MISSED'}`,
  );
  console.log(
    `floor beside the trace runs: median P99 ${floor.toFixed(3)} ms; client over floor ${(a / floor).toFixed(2)}` +
      (floor >= TARGET_P99_MS ? ' (this machine under this load keeps no thread within the target)' : ''),
  );
  console.log(machineLine(loadBefore, startedAt));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
