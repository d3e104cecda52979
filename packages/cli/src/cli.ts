import { readFile, writeFile } from 'node:fs/promises';
import {
  parseJsonlPrompts,
  runBenchmarkInThread,
  type RunOptions,
  type RunResult,
  type Workload,
} from '@teapot/measure';
import { parseBenchArgs, type BenchArgs } from './args';
import { SimulatorDeploymentError, startBuiltInSimulator, type BuiltInSimulator } from './built-in-simulator';
import { BENCH_HELP, USAGE } from './help';
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
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(BENCH_HELP);
    return EXIT.ok;
  }
  if (command !== 'bench') {
    io.stderr.write(command === undefined ? USAGE : `teapot: unknown command "${command}"\n${USAGE}`);
    return EXIT.error;
  }
  try {
    const args = parseBenchArgs(rest, io.env);
    if (args.help) {
      io.stdout.write(BENCH_HELP);
      return EXIT.ok;
    }
    return await bench(args, io);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof BenchError)) throw error;
    const hint = error instanceof UsageError ? `\nRun 'teapot bench --help' for the flags.` : '';
    io.stderr.write(`teapot bench: ${error.message}${hint}\n`);
    return EXIT.error;
  }
}

/** A benchmark that could not run or produced nothing: one line, exit code 1. */
class BenchError extends Error {}

async function bench(args: BenchArgs, io: CliIo): Promise<number> {
  const workload = await loadWorkload(args);
  let simulator: BuiltInSimulator | null = null;
  try {
    let baseUrl = args.url;
    let simulated: string | null = null;
    if (baseUrl === null) {
      simulator = await startSimulatorFor(args);
      baseUrl = simulator.baseUrl;
      simulated = describeSimulator(simulator, args);
      io.stderr.write(`teapot bench: no --url, so benchmarking the built-in simulator: ${simulated}\n`);
    }
    const model = args.model ?? (await firstModel(baseUrl, args.headers));

    const slo = requestSlo(args.slos);
    const progress = new ProgressReporter(io.stderr, args.durationS);
    const options: RunOptions = {
      target: { baseUrl, apiKind: args.apiKind, model, headers: args.headers },
      workload,
      load: args.load,
      requests: args.requests,
      durationS: args.durationS,
      warmupRequests: args.warmupRequests,
      seed: args.seed,
      timeoutMs: args.timeoutMs,
      forceOutputLength: args.forceOutputLength,
      transport: args.transport,
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
      load: args.load,
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
    await simulator?.close();
  }
}

async function loadWorkload(args: BenchArgs): Promise<Workload> {
  const choice = args.workload;
  if (choice.kind === 'synthetic') return choice;
  let text: string;
  try {
    text = await readFile(choice.path, 'utf8');
  } catch (error) {
    throw new BenchError(
      `--dataset: cannot read ${choice.path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  try {
    return { kind: 'dataset', prompts: parseJsonlPrompts(text), outputTokens: choice.outputTokens };
  } catch (error) {
    throw new BenchError(`--dataset ${choice.path}: ${error instanceof Error ? error.message : error}`);
  }
}

/** Without --model, use what the server says it serves, as OpenAI clients do. */
async function firstModel(baseUrl: string, headers: Record<string, string>): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/models`, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new BenchError(
      `cannot reach ${baseUrl}/models (${reason}); is the server up? (--model skips this lookup)`,
    );
  }
  const body = (await response.json().catch(() => null)) as { data?: Array<{ id?: unknown }> } | null;
  const id = body?.data?.[0]?.id;
  if (!response.ok || typeof id !== 'string')
    throw new BenchError(
      `${baseUrl}/models answered ${response.status} without a model id; pass --model NAME`,
    );
  return id;
}

async function writeJson(path: string, json: string): Promise<void> {
  try {
    await writeFile(path, json);
  } catch (error) {
    throw new BenchError(`--json: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

async function startSimulatorFor(args: BenchArgs): Promise<BuiltInSimulator> {
  try {
    return await startBuiltInSimulator({ ...args.simulator, servedModelName: args.model ?? undefined });
  } catch (error) {
    // e.g. a 70B model at FP16 does not fit one GPU: the simulator says what would.
    if (error instanceof SimulatorDeploymentError) throw new BenchError(`--sim-*: ${error.message}`);
    throw error;
  }
}

function describeSimulator(simulator: BuiltInSimulator, args: BenchArgs): string {
  const { maxBatch, chunkedPrefill } = args.simulator;
  const perToken = simulator.singleStreamMsPerToken.toFixed(2);
  const batch = maxBatch === undefined ? '' : ` · max batch ${maxBatch}`;
  return `${simulator.deployment}${batch} · chunked prefill ${chunkedPrefill ? 'on' : 'off'} · ${perToken} ms/token at batch 1`;
}
