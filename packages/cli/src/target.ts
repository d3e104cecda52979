import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import {
  loadDataset,
  loadTrace,
  parseJsonlPrompts,
  TRACE_LIMITS,
  traceRatePerS,
  type Load,
  type TokenizerSource,
  type Workload,
} from '@teapot/measure';
import { ModelTokenizer, readTokenizerFile, TokenizerFileError } from '@teapot/tokenizer';
import type { BenchArgs } from './args';
import { BenchError } from './bench-error';
import { SimulatorDeploymentError, startBuiltInSimulator, type BuiltInSimulator } from './built-in-simulator';
import type { ProgressStream } from './progress';

/** Where a run sends its requests: the --url endpoint, or the built-in simulator started for it. */
export interface OpenTarget {
  baseUrl: string;
  model: string;
  /** What the built-in simulator serves, in words; null for a --url endpoint. */
  simulated: string | null;
  close(): Promise<void>;
}

export async function openTarget(
  args: BenchArgs,
  stderr: ProgressStream,
  command: string,
): Promise<OpenTarget> {
  let simulator: BuiltInSimulator | null = null;
  try {
    let baseUrl = args.url;
    let simulated: string | null = null;
    if (baseUrl === null) {
      simulator = await startSimulatorFor(args);
      baseUrl = simulator.baseUrl;
      simulated = describeSimulator(simulator, args);
      stderr.write(`teapot ${command}: no --url, so benchmarking the built-in simulator: ${simulated}\n`);
    }
    const model = args.model ?? (await firstModel(baseUrl, args.headers));
    const started = simulator;
    return { baseUrl, model, simulated, close: async () => void (await started?.close()) };
  } catch (error) {
    await simulator?.close();
    throw error;
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

async function startSimulatorFor(args: BenchArgs): Promise<BuiltInSimulator> {
  try {
    return await startBuiltInSimulator({
      ...args.simulator,
      servedModelName: args.model ?? undefined,
      // the simulator counts with the client's tokenizer, so the server's usage is in the same tokens
      ...(args.tokenizer === null ? {} : { tokenizer: args.tokenizer }),
    });
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

/** The bytes of a --dataset or --trace file, or a BenchError naming the flag. */
async function readInput(flag: string, path: string, limitBytes = Infinity): Promise<Buffer> {
  try {
    const { size } = await stat(path);
    if (size > limitBytes)
      throw new BenchError(`${flag} ${path}: ${size} bytes, over the limit of ${limitBytes}`);
    return await readFile(path);
  } catch (error) {
    if (error instanceof BenchError) throw error;
    throw new BenchError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

/** The workload: the one the flags describe, or the --dataset or --trace file read into one. */
export async function loadWorkload(args: BenchArgs): Promise<Workload> {
  const choice = args.workload;
  if (choice.kind === 'trace') {
    const bytes = await readInput('--trace', choice.path, TRACE_LIMITS.bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    try {
      return loadTrace(bytes.toString('utf8'), { sha256, speed: choice.speed });
    } catch (error) {
      throw new BenchError(`--trace ${choice.path}: ${error instanceof Error ? error.message : error}`);
    }
  }
  if (choice.kind !== 'dataset' && choice.kind !== 'conversations') return choice;
  const bytes = await readInput('--dataset', choice.path);
  const text = bytes.toString('utf8');
  try {
    if (choice.kind === 'dataset')
      return { kind: 'dataset', prompts: parseJsonlPrompts(text), outputTokens: choice.outputTokens };
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { format, filters, outputTokens, thinkTime, actualAnswers } = choice;
    const { conversations, source } = loadDataset(text, { format, sha256, filters, seed: args.seed ?? 0 });
    return { kind: 'conversations', conversations, source, outputTokens, thinkTime, actualAnswers };
  } catch (error) {
    throw new BenchError(`--dataset ${choice.path}: ${error instanceof Error ? error.message : error}`);
  }
}

/** The run's load: a trace's own mean rate (after its speed) in place of the placeholder the flags give. */
export function runLoad(args: BenchArgs, workload: Workload): Load {
  if (workload.kind !== 'trace' || args.load.kind !== 'open') return args.load;
  return { ...args.load, ratePerS: traceRatePerS(workload) };
}

/** The --tokenizer file, read and checked before anything starts (a bad file is one line, exit 1). */
export function loadTokenizer(args: BenchArgs): TokenizerSource | undefined {
  if (args.tokenizer === null) return undefined;
  try {
    const source = readTokenizerFile(args.tokenizer);
    ModelTokenizer.fromBytes(source.bytes, source.name);
    return source;
  } catch (error) {
    if (error instanceof TokenizerFileError) throw new BenchError(`--tokenizer: ${error.message}`);
    throw error;
  }
}
