import { parentPort, workerData } from 'node:worker_threads';
import { runBenchmark } from './run';
import {
  lookupThroughCaller,
  sendError,
  timingBuffers,
  type FromThread,
  type ThreadInput,
  type ToThread,
} from './thread-protocol';
import type { RunOptions } from './types';

/** A run measured on this thread's event loop, which does nothing else (started by runBenchmarkInThread). */
async function measure(port: NonNullable<typeof parentPort>, input: ThreadInput): Promise<void> {
  const send = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const controller = new AbortController();
  const resolver = lookupThroughCaller(send);
  port.on('message', (message: ToThread) => {
    if (message.kind === 'abort') controller.abort();
    else resolver.answer(message);
  });
  const options: RunOptions = {
    ...input.options,
    target: { ...input.options.target, ...(input.hasLookup ? { lookup: resolver.lookup } : {}) },
    signal: controller.signal,
    ...(input.hasProgress ? { onProgress: (progress) => send({ kind: 'progress', progress }) } : {}),
  };
  try {
    const result = await runBenchmark(options);
    send({ kind: 'result', result }, timingBuffers(result));
  } catch (error) {
    send({ kind: 'failed', error: sendError(error) });
  } finally {
    port.close();
  }
}

if (parentPort) void measure(parentPort, workerData as ThreadInput);
