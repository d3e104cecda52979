import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fetchGroundTruth } from '@teapot/simulator';
import { MEASURING_PROCESS_FLAGS } from '../speed/process-flags';
import { percentile } from '@teapot/run-definitions';
import { addedDelays } from './added-delay';
import type { ClientDocument, ClientJob, ClientName } from './documents';
import { startSimulatorProcess, stopProcess, type SimulatorProcess } from './simulator-process';

jest.setTimeout(120_000);

const DIST = join(__dirname, '..', '..', 'dist');
const SIMULATOR_MAIN = join(__dirname, '..', '..', '..', 'simulator', 'dist', 'main.js');
const CLIENT = join(DIST, 'accuracy', 'client.js');

/** A moderate and a high stream count, one wave of requests each: 50 tokens at 20 ms, ~1 s of streaming. */
const LEVELS = [64, 512];
/**
 * teapot's P99 added delay may be at most this many times node-floor's, measured in the same run. Here (2
 * cores shared with other jobs, load average 0.1-9, no pinning) the ratio was 0.35-1.9x over 14 runs at
 * each level, with a busy loop on each core beside it too; once in those runs one 512-stream P99 was
 * 194 ms (45x) at load 8, which ATTEMPTS absorbs. A 2 ms busy wait before each read's timestamp: 46-101x.
 */
const FLOOR_MULTIPLE = 4;
/**
 * ...and its median at most this much over node-floor's, ms. A P99 on a loaded machine moves by several
 * ms between runs, so a constant lateness hides in it (2 ms added to every read's timestamp: P99 1.1-5x,
 * passing at 512 streams); the medians differed by -0.34 to +0.45 ms in the runs above, by 1.7-2.0 ms
 * with those 2 ms.
 */
const MEDIAN_ALLOWANCE_MS = 1;
/** A level is measured again once when it misses: one hiccup of a shared machine is not a regression, two in a row are. */
const ATTEMPTS = 2;

interface Delays {
  p50: number;
  p99: number;
}

/** One client in a process of its own, as the accuracy bench runs it; its added delay against the ground truth, ms. */
async function addedDelayMs(client: ClientName, baseUrl: string, streams: number): Promise<Delays> {
  const job: ClientJob = { client, baseUrl, streams, requests: streams };
  const output = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [...MEASURING_PROCESS_FLAGS, CLIENT, JSON.stringify(job)],
      { maxBuffer: 1 << 28 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  const document = JSON.parse(output) as ClientDocument;
  const truth = await fetchGroundTruth(
    baseUrl,
    document.streams.map((stream) => stream.id),
  );
  const { delaysMs, unmatched } = addedDelays(document, truth);
  expect({ client, failed: document.failed, unmatched }).toEqual({ client, failed: 0, unmatched: 0 });
  expect(delaysMs.length).toBe(streams * 50);
  delaysMs.sort((a, b) => a - b);
  return { p50: percentile(delaysMs, 0.5), p99: percentile(delaysMs, 0.99) };
}

/**
 * The accuracy the speed machinery buys (speed/README.md), held relative to what the machine allows:
 * node-floor only timestamps each socket read, so a loaded CI machine slows both alike. A refactor that
 * makes teapot timestamp late (a slower read path, parsing before the timestamp, a GC or compile in the
 * window) moves teapot's P99 and not the floor's.
 */
describe(`the accuracy gate: teapot's P99 added delay within ${FLOOR_MULTIPLE}x node-floor's, its median within ${MEDIAN_ALLOWANCE_MS} ms`, () => {
  let simulator: SimulatorProcess;
  beforeAll(async () => {
    simulator = await startSimulatorProcess(SIMULATOR_MAIN);
  });
  afterAll(() => stopProcess(simulator.child));

  it.each(LEVELS)('at %i streams', async (streams) => {
    const { baseUrl } = simulator;
    let verdict = { met: false, text: '' };
    for (let attempt = 1; attempt <= ATTEMPTS && !verdict.met; attempt++) {
      // the floor before and after teapot, so that a load change during the level counts for both
      const before = await addedDelayMs('node-floor', baseUrl, streams);
      const teapot = await addedDelayMs('http1', baseUrl, streams);
      const after = await addedDelayMs('node-floor', baseUrl, streams);
      const floor = { p50: Math.max(before.p50, after.p50), p99: Math.max(before.p99, after.p99) };
      verdict = {
        met: teapot.p99 <= FLOOR_MULTIPLE * floor.p99 && teapot.p50 <= floor.p50 + MEDIAN_ALLOWANCE_MS,
        text:
          `${streams} streams, attempt ${attempt}: teapot/http1 P50 ${teapot.p50.toFixed(3)} P99 ${teapot.p99.toFixed(2)} ms, ` +
          `node-floor P50 ${floor.p50.toFixed(3)} P99 ${floor.p99.toFixed(2)} ms: P99 ${(teapot.p99 / floor.p99).toFixed(2)}x, ` +
          `P50 ${(teapot.p50 - floor.p50).toFixed(3)} ms over`,
      };
      process.stderr.write(`accuracy gate, ${verdict.text}\n`);
    }
    expect(verdict).toEqual({ met: true, text: verdict.text });
  });
});
