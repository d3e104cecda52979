import { writeFile } from 'node:fs/promises';
import { runBenchmarkInThread, type RunOptions, type RunResult } from '@teapot/measure';
import { parseBenchArgs, type BenchArgs } from './args';
import { sweep } from './sweep';
import { parseSweepArgs } from './sweep-args';
import { BenchError } from './bench-error';
import { loadTokenizer, loadWorkload, openTarget, runLoad } from './target';
import { BENCH_HELP, SWEEP_HELP, USAGE } from './help';
import { DEPLOY_HELP, VERDICT_HELP } from './deploy/gate-help';
import { parseDeployArgs, parseVerdictArgs } from './deploy/gate-args';
import { deploy, exitCodeOf, GATE_EXIT, verdict } from './deploy/gate';
import { ApiFailure } from './deploy/teapot-api';
import { formatJsonResult } from './json-output';
import { ProgressReporter, type ProgressStream } from './progress';
import { renderReport } from './report';
import { evaluateSlos, requestSlo } from './slo';
import { UsageError } from '@teapot/command-line';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
  env: NodeJS.ProcessEnv;
  /** Aborts a running benchmark (Ctrl-C); what finished is still reported. */
  signal?: AbortSignal;
}

export const EXIT = { ok: 0, error: 1, sloMissed: 2 } as const;

/** `teapot <argv>`; resolves to the exit code. Never throws for a user's mistake. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return printed(io, BENCH_HELP);
  if (command === 'deploy' || command === 'verdict') return gate(command, rest, io);
  if (command !== 'bench' && command !== 'sweep') {
    io.stderr.write(command === undefined ? USAGE : `teapot: unknown command "${command}"\n${USAGE}`);
    return EXIT.error;
  }
  try {
    if (command === 'sweep') {
      const args = parseSweepArgs(rest, io.env);
      return args.bench.help ? printed(io, SWEEP_HELP) : await sweep(args, io);
    }
    const args = parseBenchArgs(rest, io.env);
    return args.help ? printed(io, BENCH_HELP) : await bench(args, io);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof BenchError)) throw error;
    const hint = error instanceof UsageError ? `\nRun 'teapot ${command} --help' for the flags.` : '';
    io.stderr.write(`teapot ${command}: ${error.message}${hint}\n`);
    return EXIT.error;
  }
}

/** `teapot deploy` and `teapot verdict`: every failure is one line and an exit code of its own (GATE_EXIT). */
async function gate(command: 'deploy' | 'verdict', argv: string[], io: CliIo): Promise<number> {
  try {
    if (command === 'deploy') {
      const args = parseDeployArgs(argv, io.env);
      return args.help ? printed(io, DEPLOY_HELP) : await deploy(args, io);
    }
    const args = parseVerdictArgs(argv, io.env);
    return args.help ? printed(io, VERDICT_HELP) : await verdict(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`teapot ${command}: ${error.message}\nRun 'teapot ${command} --help' for the flags.\n`);
      return GATE_EXIT.usage;
    }
    if (!(error instanceof ApiFailure)) throw error;
    io.stderr.write(`teapot ${command}: ${error.message}\n`);
    return exitCodeOf(error);
  }
}

function printed(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}

async function bench(args: BenchArgs, io: CliIo): Promise<number> {
  const workload = await loadWorkload(args);
  const tokenizer = loadTokenizer(args);
  const target = await openTarget(args, io.stderr, 'bench');
  try {
    const { baseUrl, model, simulated } = target;

    const slo = requestSlo(args.slos);
    const progress = new ProgressReporter(io.stderr, args.durationS);
    const options: RunOptions = {
      target: { baseUrl, apiKind: args.apiKind, model, headers: args.headers },
      workload,
      load: runLoad(args, workload),
      requests: args.requests ?? (workload.kind === 'trace' ? workload.requests.length : undefined),
      durationS: args.durationS,
      warmupRequests: args.warmupRequests,
      seed: args.seed,
      timeoutMs: args.timeoutMs,
      forceOutputLength: args.forceOutputLength,
      transport: args.transport,
      tokenizer,
      slo,
      signal: io.signal,
      onProgress: (p) => progress.update(p),
    };
    let result: RunResult;
    try {
      // measured on a thread of its own, as the worker does: the client's CPU is that thread's, so neither
      // the progress display nor the built-in simulator's thread counts as the client's
      result = await runBenchmarkInThread(options);
    } finally {
      progress.finish();
    }

    const verdicts = evaluateSlos(args.slos, result.summary);
    const table = renderReport({
      baseUrl,
      apiKind: args.apiKind,
      model,
      simulator: simulated,
      load: options.load,
      workload: args.workload,
      forceOutputLength: args.forceOutputLength,
      summary: result.summary,
      client: result.client,
      transport: result.transport,
      measureVersion: result.measureVersion,
      streamOptions: result.streamOptions,
      slo: verdicts,
      aborted: result.aborted,
    });
    (args.json === '-' ? io.stderr : io.stdout).write(table);
    if (args.json !== null) {
      const json = formatJsonResult(
        result,
        { args, baseUrl, model, simulator: simulated, slo: verdicts },
        args.raw,
      );
      if (args.json === '-') io.stdout.write(json);
      else await writeJson(args.json, json);
    }

    const { requests } = result.summary;
    if (requests.succeeded === 0 && requests.failed > 0) {
      io.stderr.write(`teapot bench: every request failed; is ${baseUrl} up and serving ${model}?\n`);
      return EXIT.error;
    }
    return verdicts.every((v) => v.pass) ? EXIT.ok : EXIT.sloMissed;
  } finally {
    await target.close();
  }
}

async function writeJson(path: string, json: string): Promise<void> {
  try {
    await writeFile(path, json);
  } catch (error) {
    throw new BenchError(`--json: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}
