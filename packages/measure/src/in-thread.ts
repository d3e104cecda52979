import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { validateRunOptions } from './run-options';
import { receiveError, sendError, type FromThread, type ThreadInput, type ToThread } from './thread-protocol';
import type { RunOptions, RunResult } from './types';

/**
 * runBenchmark on a worker thread of its own: for a process that does other work while it measures
 * (the worker persisting another run, a CLI drawing progress), whose event loop must never hold up a
 * timestamp. The result is the same RunResult; its timing arrays are moved back, not copied.
 *
 * What cannot cross threads stays here and is reached by message: `signal` (an abort stops the run as
 * it would in this thread), `target.lookup` (each connection's lookup is answered by this thread, and
 * its errors keep their class and code, so requests are classified as before) and `onProgress` (an
 * error it throws is thrown at the end, as runBenchmark does). Options are validated here, so a bad
 * option rejects with the same error. The promise settles once: with the result, or with why the thread
 * failed.
 */
export function runBenchmarkInThread(options: RunOptions): Promise<RunResult> {
  try {
    validateRunOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const { signal, onProgress, target, ...data } = options;
  const { lookup, ...targetData } = target;
  const input: ThreadInput = {
    options: { ...data, target: targetData },
    hasLookup: lookup !== undefined,
    hasProgress: onProgress !== undefined,
  };
  const worker = new Worker(measuringThreadScript(), { workerData: input });
  const send = (message: ToThread) => worker.postMessage(message);
  return new Promise<RunResult>((resolve, reject) => {
    let settled = false;
    let progressError: unknown = null;
    const onAbort = () => send({ kind: 'abort' });
    const settle = (outcome: { result: RunResult } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if ('result' in outcome) resolve(outcome.result);
      else reject(outcome.error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    worker.on('message', (message: FromThread) => {
      switch (message.kind) {
        case 'progress':
          if (progressError !== null || !onProgress) return;
          try {
            onProgress(message.progress);
          } catch (error) {
            progressError = error;
          }
          return;
        case 'lookup':
          return answerLookup(lookup, message, send);
        case 'result':
          return settle(progressError === null ? { result: message.result } : { error: progressError });
        case 'failed':
          return settle({ error: receiveError(message.error) });
      }
    });
    worker.on('error', (error) =>
      settle({ error: new Error(`the measuring thread failed: ${error.message}`, { cause: error }) }),
    );
    worker.on('exit', (code) =>
      settle({ error: new Error(`the measuring thread exited (code ${code}) before it reported a result`) }),
    );
  });
}

function answerLookup(
  lookup: RunOptions['target']['lookup'],
  message: Extract<FromThread, { kind: 'lookup' }>,
  send: (message: ToThread) => void,
): void {
  const { id } = message;
  const reply = (error: unknown, address: unknown, family: unknown) =>
    send({
      kind: 'lookup-result',
      id,
      error: error ? sendError(error) : null,
      address: (address ?? '') as string,
      family: typeof family === 'number' ? family : undefined,
    });
  try {
    if (!lookup) throw new Error('no lookup was configured for this run');
    lookup(message.hostname, message.options, reply);
  } catch (error) {
    reply(error, '', undefined);
  }
}

/** dist/ has the compiled thread beside this file; under jest (src/*.ts via swc) a Worker cannot load .ts. */
export function measuringThreadScript(dir: string = __dirname): string {
  const sibling = join(dir, 'measuring-thread.js');
  return existsSync(sibling) ? sibling : join(dir, '..', 'dist', 'measuring-thread.js');
}
