import { Worker } from 'node:worker_threads';
import { fetchGroundTruth } from '@teapot/simulator';
import { percentile } from '@teapot/run-definitions';
import type { RunOptions, RunResult } from '../types';

/**
 * A simulator on a thread of its own: blocking this thread must hold up neither it nor a measuring
 * thread, only a run measured here.
 */
export async function simulatorThread(): Promise<{ baseUrl: string; model: string; close(): Promise<void> }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const { startSimulator } = require('@teapot/simulator');
     startSimulator(workerData).then((sim) => {
       parentPort.postMessage({ baseUrl: sim.baseUrl, model: sim.deployment.model.name });
       parentPort.once('message', () => sim.close().then(() => parentPort.close()));
     });`,
    { eval: true, workerData: { gpu: 'h100-sxm', model: 'llama-8b', seed: 5, jitter: 0, spinUs: 0 } },
  );
  const ready = await new Promise<{ baseUrl: string; model: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    ...ready,
    close: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/** Blocks this thread's event loop, as persisting another run's results would. */
export function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** P99 of measured arrival minus the simulator's write, ms, over every token chunk of the run. */
export async function addedDelayP99Ms(baseUrl: string, result: RunResult): Promise<number> {
  const truth = await fetchGroundTruth(
    baseUrl,
    result.requests.map((record) => record.responseId ?? ''),
  );
  const anchor = BigInt(result.monotonicAnchorNs);
  const delays: number[] = [];
  for (const record of result.requests) {
    const content = truth.get(record.responseId ?? '')?.events.filter((e) => e.tokens > 0) ?? [];
    let j = 0;
    record.chunkTokens.forEach((tokens, k) => {
      if (tokens === 0) return;
      const arrivedNs = anchor + BigInt(record.startUs + record.chunkOffsetsUs[k]) * 1000n;
      delays.push(Number(arrivedNs - content[j++].writtenNs) / 1e6);
    });
  }
  if (delays.length < 100) throw new Error(`only ${delays.length} token chunks to compare`);
  return percentile(
    delays.sort((a, b) => a - b),
    0.99,
  );
}

/**
 * A simulator thread for the enclosing describe block, started before its tests and closed after, and
 * options for a closed-loop run of `requests` requests of `outputTokens` tokens over 4 streams against it.
 */
export function useSimulatorThread(
  requests: number,
  outputTokens: number,
): { sim: Awaited<ReturnType<typeof simulatorThread>>; options: RunOptions } {
  const world = {} as { sim: Awaited<ReturnType<typeof simulatorThread>>; options: RunOptions };
  beforeAll(async () => {
    world.sim = await simulatorThread();
    world.options = {
      target: { baseUrl: world.sim.baseUrl, apiKind: 'chat', model: world.sim.model },
      workload: { kind: 'synthetic', inputTokens: 16, outputTokens },
      load: { kind: 'closed', concurrency: 4 },
      requests,
      forceOutputLength: true,
    };
  });
  afterAll(() => world.sim.close());
  return world;
}
