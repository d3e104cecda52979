import { startSimulator, type RunningSimulator, type SimulatorOptions } from '@teapot/simulator';
import { runBenchmarkInThread } from '../in-thread';
import { runBenchmark } from '../run';
import type { RunOptions, RunResult, Transport } from '../types';

// Every test file importing this measures real runs against a simulator: seconds each on a busy machine.
jest.setTimeout(30_000);

/** The transport under test where a block sets one; the default otherwise. */
let transport: Transport | undefined;
/** Where the run is measured: on this thread, or on a thread of its own (what the worker and the CLI use). */
let measureWith: (options: RunOptions) => Promise<RunResult> = runBenchmark;

/** The transport the enclosing describeEachThreadAndTransport block sets (undefined outside one). */
export const currentTransport = (): Transport | undefined => transport;

/** Measures a run where the enclosing describeEachThread block says. */
export const measure = (options: RunOptions): Promise<RunResult> => measureWith(options);

/**
 * Runs `body` once measured on the caller's thread and once on a thread of its own: records, errors
 * and ground-truth timings must be the same either way.
 */
export function describeEachThread(body: () => void): void {
  describe.each([
    ["on the caller's thread", runBenchmark],
    ['on a thread of its own', runBenchmarkInThread],
  ] as const)('measured %s', (_where, each) => {
    beforeAll(() => {
      measureWith = each;
    });
    afterAll(() => {
      measureWith = runBenchmark;
    });
    body();
  });
}

/**
 * Runs `body` once per transport on each thread (describeEachThread): both transports must agree with
 * the ground truth and classify every fault alike.
 */
export function describeEachThreadAndTransport(body: () => void): void {
  describeEachThread(() => describeEachTransport(body));
}

function describeEachTransport(body: () => void): void {
  describe.each(['undici', 'http1'] as const)('%s transport', (each) => {
    beforeAll(() => {
      transport = each;
    });
    afterAll(() => {
      transport = undefined;
    });
    body();
  });
}

/** A simulator (seed 7 unless `options` say) for the length of `body`. */
export async function withSimulator<T>(
  options: SimulatorOptions,
  body: (sim: RunningSimulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ seed: 7, ...options });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/** A small closed-loop run against `sim` with the block's transport; `overrides` replace fields. */
export function options(sim: RunningSimulator, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    transport,
    target: { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.deployment.model.name },
    workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 12 },
    load: { kind: 'closed', concurrency: 4 },
    requests: 4,
    forceOutputLength: true,
    seed: 1,
    ...overrides,
  };
}
