/**
 * Whether a trace replay keeps its schedule: a bursty Mooncake-shaped trace (gamma gaps, shape 0.5,
 * varied lengths) replayed at its own rate against the simulator, busy-polling (A); as the baseline a
 * plain Poisson schedule at the same mean rate, count and mean lengths, busy-polling (B); and the trace
 * again with the default open loop, which sleeps between sends (C). A B C rounds in one invocation, so
 * drift of the machine hits all alike; each run is measured on its own thread, as the worker measures.
 * Prints each run's send lateness (write time minus scheduled time: P50, P99, max, sends over 1 ms late)
 * beside the measuring thread's event-loop delay P99, the median P99 of each side, A against the target
 * P99 < 1 ms and against B, and C against A. Beside each sleeping run, this process's main thread waits
 * out the same schedule with the open loop's own code and sends nothing (the floor): how punctual this
 * machine lets a sleeping thread be under the run's load.
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
  type RunResult,
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
  await runOpenLoop(
    { timesUs, promptAt: null },
    nowUs(),
    {},
    {
      done: finished,
      nowUs,
      active: () => 0,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms ?? 1)),
      sendDueIn: () => undefined,
      polled: () => undefined,
      start: (scheduledUs, _prompt, ended) => {
        lateness.push((nowUs() - scheduledUs) / 1000);
        ended();
      },
    },
  );
  const sorted = lateness.sort((a, b) => a - b);
  return {
    late: sorted.filter((ms) => ms > 1).length,
    p99Ms: sorted.length > 0 ? percentile(sorted, 0.99) : 0,
  };
}

/** A run in its measuring thread, and the floor of `timesUs` beside it on this thread (null: none). */
async function runWithFloor(
  options: RunOptions,
  timesUs: Float64Array | null,
): Promise<{ result: RunResult; floor: Lateness | null }> {
  let finished = false;
  let floor: Promise<Lateness> | null = null;
  const result = await runBenchmarkInThread({
    ...options,
    onProgress: () => {
      if (timesUs !== null) floor ??= floorLateness(timesUs, () => finished);
    },
  }).finally(() => (finished = true));
  return { result, floor: floor === null ? null : await floor };
}

/** The runs of each round, in this order. */
const SIDES = [
  { name: 'A', schedule: 'trace', busyPoll: true, label: 'trace, busy-polling' },
  { name: 'B', schedule: 'poisson', busyPoll: true, label: 'poisson, busy-polling' },
  { name: 'C', schedule: 'trace', busyPoll: false, label: 'trace, sleeping' },
] as const;

interface Row {
  side: (typeof SIDES)[number];
  lateness: SendLateness;
  ok: number;
  loopP99Ms: number;
  floor: Lateness | null;
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
  const rows: Row[] = [];
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const side of SIDES) {
        const options: RunOptions = {
          target: { baseUrl: simulator.baseUrl, apiKind: 'chat', model: 'llama-8b' },
          workload: side.schedule === 'trace' ? trace : poisson,
          load: { kind: 'open', ratePerS: RATE_PER_S, arrival: 'poisson', busyPoll: side.busyPoll },
          requests: REQUESTS,
          seed: 7 + pair,
          timeoutMs: 120_000,
          stallTimeoutMs: 30_000,
          forceOutputLength: true,
        };
        const timesUs =
          side.schedule === 'trace'
            ? traceTimesUs
            : arrivalSchedule({ ratePerS: RATE_PER_S, arrival: 'poisson', count: REQUESTS, seed: 7 + pair });
        // a floor beside a busy-polling run would be a second spinning thread on the run's cores
        const { result, floor } = await runWithFloor(options, side.busyPoll ? null : timesUs);
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
    ['schedule', 24],
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
    `trace replay: ${PAIRS} rounds of ${REQUESTS} requests at ${RATE_PER_S}/s (trace span ${span.toFixed(1)} s at speed ${SPEED}, ` +
      `gamma shape 0.5 gaps; lengths ${Math.round(meanInput)}/${Math.round(meanOutput)} tokens on average; ` +
      `simulator at nice ${SIMULATOR_NICE})`,
  );
  console.log(table.header);
  rows.forEach((row, i) =>
    console.log(
      table.line([
        `${Math.floor(i / SIDES.length) + 1}${row.side.name}`,
        row.side.label,
        String(row.ok),
        String(row.lateness.late),
        row.lateness.p50Ms.toFixed(3),
        row.lateness.p99Ms.toFixed(3),
        row.lateness.maxMs.toFixed(3),
        row.loopP99Ms.toFixed(3),
        row.floor === null ? '-' : String(row.floor.late),
        row.floor === null ? '-' : row.floor.p99Ms.toFixed(3),
      ]),
    ),
  );
  const p99 = (name: string) => median(rows.filter((r) => r.side.name === name).map((r) => r.lateness.p99Ms));
  const [a, b, c] = SIDES.map((side) => p99(side.name));
  const floor = median(rows.flatMap((r) => (r.floor === null ? [] : [r.floor.p99Ms])));
  console.log(
    `median P99 send lateness, busy-polling: trace ${a.toFixed(3)} ms, poisson ${b.toFixed(3)} ms ` +
      `(ratio ${(a / b).toFixed(2)}); target < ${TARGET_P99_MS} ms: ${a < TARGET_P99_MS ? 'met' : 'MISSED'}`,
  );
  console.log(
    `sleeping between sends (the default): trace ${c.toFixed(3)} ms (${(c / a).toFixed(2)}x busy-polling); ` +
      `the floor beside it ${floor.toFixed(3)} ms (client over floor ${(c / floor).toFixed(2)})`,
  );
  console.log(machineLine(loadBefore, startedAt));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
