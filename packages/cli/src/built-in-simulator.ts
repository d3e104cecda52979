import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SimulatorOptions } from '@teapot/simulator';
import type { WorkerCommand, WorkerReport } from './simulator-worker';

/** The built-in simulator, served from a worker thread: its decode loop never delays the client's. */
export interface BuiltInSimulator {
  baseUrl: string;
  port: number;
  /** e.g. "llama-8b fp16 (KV bf16) on h100-sxm". */
  deployment: string;
  singleStreamMsPerToken: number;
  /** The worker's thread id (the main thread's is 0). */
  threadId: number;
  close(): Promise<void>;
}

/** A deployment the simulator refuses (e.g. 70B at FP16 on one L4), with its message. */
export class SimulatorDeploymentError extends Error {}

const CLOSE_TIMEOUT_MS = 5_000;

// dist/ has the compiled worker beside this file; under jest (src/*.ts via swc) a Worker cannot load
// .ts, so use the build jest.global-setup.js makes first.
export function workerScript(dir: string = __dirname): string {
  const sibling = join(dir, 'simulator-worker.js');
  return existsSync(sibling) ? sibling : join(dir, '..', 'dist', 'simulator-worker.js');
}

export function startBuiltInSimulator(options: SimulatorOptions): Promise<BuiltInSimulator> {
  const worker = new Worker(workerScript(), { workerData: options });
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      void worker.terminate();
      reject(error);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => reject(new Error(`the simulator worker exited with code ${code}`)));
    worker.once('message', (report: WorkerReport) => {
      if (report.kind === 'failed') {
        const error = report.deploymentError
          ? new SimulatorDeploymentError(report.message)
          : Object.assign(new Error(report.message), { stack: report.stack });
        fail(error);
        return;
      }
      if (report.kind !== 'ready') return fail(new Error(`unexpected report "${report.kind}"`));
      worker.removeAllListeners('exit');
      worker.removeAllListeners('error');
      // A crash after start surfaces as failed requests; keep it from becoming an unhandled error.
      worker.on('error', () => undefined);
      resolve({
        baseUrl: report.baseUrl,
        port: report.port,
        deployment: report.deployment,
        singleStreamMsPerToken: report.singleStreamMsPerToken,
        threadId: report.threadId,
        close: () => closeWorker(worker),
      });
    });
  });
}

/** Asks the simulator to end its streams and server, then terminates the thread either way. */
async function closeWorker(worker: Worker): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    worker.on('message', (report: WorkerReport) => report.kind === 'closed' && done());
    worker.once('exit', done);
  });
  worker.postMessage({ kind: 'close' } satisfies WorkerCommand);
  await closed;
  await worker.terminate();
}
