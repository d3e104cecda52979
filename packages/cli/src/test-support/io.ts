import type { CliIo } from '../cli';

export interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

/** A CliIo that records what the command writes, as a non-TTY would see it. */
export function captureIo(env: NodeJS.ProcessEnv = {}, signal?: AbortSignal): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    env,
    signal,
    out: () => out,
    err: () => err,
  };
}
