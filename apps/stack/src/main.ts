#!/usr/bin/env node
import { readCommandLine } from '@teapot/command-line';
import { USAGE, parseStackArgs } from './args';
import { runStack } from './stack';

const SIGNAL_ECHO_MS = 1_000;

async function main(): Promise<number> {
  const commandLine = readCommandLine(process.argv.slice(2), {
    name: 'teapot',
    help: USAGE,
    parse: parseStackArgs,
  });
  if ('exitCode' in commandLine) return commandLine.exitCode;
  const interrupt = new AbortController();
  let firstSignalAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt === null) {
      firstSignalAt = Date.now();
      interrupt.abort(new Error(signal));
      return;
    }
    // npm and pnpm forward the terminal's Ctrl-C, so one press arrives twice at once; a press seconds
    // later means "now": the exit hook kills whatever is still running.
    if (Date.now() - firstSignalAt > SIGNAL_ECHO_MS) process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  const { exitCode } = await runStack(commandLine.options, {
    env: process.env,
    output: process.stdout,
    signal: interrupt.signal,
  });
  return exitCode;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`teapot: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
