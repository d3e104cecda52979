import { parentPort, threadId, workerData } from 'node:worker_threads';
import {
  DeploymentError,
  describeDeployment,
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '@teapot/simulator';

/** What the worker posts once: the simulator is listening, or why it could not start. */
export type WorkerReport =
  | {
      kind: 'ready';
      baseUrl: string;
      port: number;
      deployment: string;
      singleStreamMsPerToken: number;
      threadId: number;
    }
  | { kind: 'failed'; deploymentError: boolean; message: string; stack?: string }
  | { kind: 'closed' };

export type WorkerCommand = { kind: 'close' };

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator({ ...(workerData as SimulatorOptions), port: 0 });
  } catch (error) {
    const failure: WorkerReport = {
      kind: 'failed',
      deploymentError: error instanceof DeploymentError,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    };
    port.postMessage(failure);
    return;
  }
  const stats = simulator.stats();
  const ready: WorkerReport = {
    kind: 'ready',
    baseUrl: simulator.baseUrl,
    port: simulator.port,
    deployment: describeDeployment(simulator.deployment),
    singleStreamMsPerToken: stats.singleStreamMsPerToken,
    threadId,
  };
  port.postMessage(ready);
  port.on('message', (command: WorkerCommand) => {
    if (command.kind !== 'close') return;
    void simulator.close().then(() => {
      port.postMessage({ kind: 'closed' } satisfies WorkerReport);
      port.close();
    });
  });
}

if (parentPort) void serve(parentPort);
