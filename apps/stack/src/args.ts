import { UsageError, readFlags, wholeNumber } from '@teapot/command-line';

export interface StackOptions {
  /** Exit 0 after the table instead of serving until Ctrl-C. */
  once: boolean;
  /** Show the children's log lines, prefixed with their name. */
  verbose: boolean;
  /** Scheduled runs per endpoint to wait for before the table. */
  runs: number;
  /** Seconds between scheduled runs of each demo profile. */
  intervalS: number;
  apiPort: number;
  /** Ports of the FP16 and FP8 simulators. */
  simulatorPorts: [number, number];
}

export const DEFAULT_STACK_OPTIONS: StackOptions = {
  once: false,
  verbose: false,
  runs: 3,
  intervalS: 15,
  apiPort: 3000,
  simulatorPorts: [8101, 8102],
};

export const USAGE = `Usage: node apps/stack/dist/main.js [options]   (npm start does this after building)

Starts teapot on this machine: migrates the database, starts the API, the worker and two simulated
endpoints (llama-8b on an H100 at FP16 and at FP8), registers them with a scheduled profile through
the REST API, waits for a few scheduled runs and prints what they measured. Then it announces a
deployment that makes the FP8 endpoint slower (its simulator switches to FP16 weights and a small
KV cache) and prints the signed deployment.regressed webhook its own local receiver got and
verified, with why (preemptions, KV-cache usage from the simulator's own metrics). Then it keeps
serving until Ctrl-C.

  --once              exit after the deployment's verdict (exit code 0 when both endpoints were measured and the deployment was judged)
  --verbose           show the log lines of the API, the worker and the simulators
  --runs N            scheduled runs per endpoint to wait for (default ${DEFAULT_STACK_OPTIONS.runs})
  --interval S        seconds between scheduled runs, at least 5 (default ${DEFAULT_STACK_OPTIONS.intervalS})
  --api-port N        port of the API (default ${DEFAULT_STACK_OPTIONS.apiPort})
  --sim-ports A,B     ports of the FP16 and FP8 simulators (default ${DEFAULT_STACK_OPTIONS.simulatorPorts.join(',')})
  --help              this text

Environment: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/teapot), REDIS_URL (default
redis://127.0.0.1:6379), TEAPOT_REDIS_PREFIX; TEAPOT_SECRET_KEY and TEAPOT_API_KEY are generated
into .teapot/dev.env on first start unless set.`;

export function parseStackArgs(argv: string[]): StackOptions | 'help' {
  const values = readFlags(argv, {
    once: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
    runs: { type: 'string' },
    interval: { type: 'string' },
    'api-port': { type: 'string' },
    'sim-ports': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const defaults = DEFAULT_STACK_OPTIONS;
  const simPorts = values['sim-ports']?.split(',');
  if (simPorts && simPorts.length !== 2) {
    throw new UsageError(`--sim-ports takes two ports separated by a comma, got "${values['sim-ports']}"`);
  }
  return {
    once: values.once ?? false,
    verbose: values.verbose ?? false,
    runs: wholeNumber('--runs', values.runs, 1, 100) ?? defaults.runs,
    intervalS: wholeNumber('--interval', values.interval, 5, 3600) ?? defaults.intervalS,
    apiPort: wholeNumber('--api-port', values['api-port'], 1, 65535) ?? defaults.apiPort,
    simulatorPorts: simPorts
      ? [wholeNumber('--sim-ports', simPorts[0], 1, 65535), wholeNumber('--sim-ports', simPorts[1], 1, 65535)]
      : defaults.simulatorPorts,
  };
}
