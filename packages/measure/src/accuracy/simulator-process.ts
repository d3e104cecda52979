import { spawn, type ChildProcess } from 'node:child_process';

/** The simulator's decode step in the accuracy runs: ~50 tokens/s per stream, whatever the batch. */
export const STEP_MS = 20;

export interface SimulatorProcess {
  child: ChildProcess;
  /** Up to the version segment, as a target's baseUrl. */
  baseUrl: string;
}

/**
 * The simulator in a process of its own (`script`: its dist/main.js) on a free port, every step STEP_MS
 * whatever the batch, one chunk for any prompt, no jitter: the clock the accuracy runs compare a client
 * with. `core`: pinned to it with taskset.
 */
export async function startSimulatorProcess(
  script: string,
  core: number | null = null,
): Promise<SimulatorProcess> {
  const flags = ['--step-ms', String(STEP_MS), '--max-batch', '4096', '--chunked-prefill'];
  const exact = ['--chunk-size', String(1 << 20), '--jitter', '0'];
  const command = [process.execPath, script, '--port', '0', ...flags, ...exact];
  if (core !== null) command.unshift('taskset', '-c', String(core));
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  // A run stopped by Ctrl-C or `timeout` must not leave its simulator running.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  try {
    return { child, baseUrl: await listeningOn(child) };
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

/** The base URL of the simulator's first line ("teapot-sim listening on <url>: ..."). */
function listeningOn(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error('the simulator did not start listening within 15 s')),
      15_000,
    );
    child.stdout!.on('data', (data: Buffer) => {
      text += data.toString('utf8');
      const listening = /teapot-sim listening on (\S+):/.exec(text);
      if (listening === null) return;
      clearTimeout(timer);
      resolve(listening[1]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited with code ${code} before it listened`));
    });
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
