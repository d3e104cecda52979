#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { runCli } from './cli';
import { MEASURING_PROCESS_FLAGS } from '@teapot/measure';

// before any measuring thread starts, which the flags reach (see MEASURING_PROCESS_FLAGS)
for (const flag of MEASURING_PROCESS_FLAGS) setFlagsFromString(flag);

// The first Ctrl-C stops the run (or the wait for a verdict) and still prints what finished; a
// second one quits at once.
const command = process.argv[2] ?? 'bench';
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  process.stderr.write(`\nteapot ${command}: stopping (Ctrl-C again to quit now)\n`);
  interrupt.abort();
});

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: interrupt.signal,
}).then(
  (code) => {
    process.exitCode = interrupt.signal.aborted && code === 0 ? 130 : code;
  },
  (error: unknown) => {
    process.stderr.write(
      `teapot ${command}: internal error: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
