import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built `teapot` command. */
export const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

export interface BinaryRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built binary the way a shell or CI job does, with `env` on top of this process's. */
export function teapot(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<BinaryRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
