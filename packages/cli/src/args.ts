import {
  UsageError,
  oneOf,
  positiveNumber,
  readFlags,
  wholeNumber,
  type FlagOptions,
  type FlagValues,
} from '@teapot/command-line';
import { DEFAULT_TRANSPORT, TRANSPORTS, type ApiKind, type Load, type Transport } from '@teapot/measure';
import {
  GPU_PRESETS,
  MODEL_PRESETS,
  WEIGHT_QUANTS,
  type GpuName,
  type ModelName,
  type WeightQuant,
} from '@teapot/hardware';
import { parseSlo, type SloGate } from './slo';
import { parseWorkload, WORKLOAD_FLAGS, type WorkloadChoice } from './workload-args';

export interface SimulatorChoice {
  gpu: GpuName;
  model: ModelName;
  quant: WeightQuant;
  tp: number;
  /** Unset: the simulator's default. */
  maxBatch?: number;
  chunkedPrefill: boolean;
}

export type { WorkloadChoice };

export interface BenchArgs {
  help: boolean;
  /** null: benchmark the built-in simulator, started in a worker thread. */
  url: string | null;
  model: string | null;
  apiKind: ApiKind;
  /** Request headers, auth included. Values are secrets: never print them. */
  headers: Record<string, string>;
  simulator: SimulatorChoice;
  workload: WorkloadChoice;
  load: Load;
  requests?: number;
  durationS?: number;
  warmupRequests: number;
  seed?: number;
  timeoutMs?: number;
  forceOutputLength: boolean;
  transport: Transport;
  slos: SloGate[];
  /** A model's tokenizer.json: prompts built and output counted in its tokens (the built-in simulator's too). */
  tokenizer: string | null;
  /** Where the JSON result goes: a path, '-' for stdout, or null for none. */
  json: string | null;
  raw: boolean;
}

/** The demo `teapot bench` gives with no flags: ~10-20 s against the simulated H100 / 8B / FP16. */
export const BENCH_DEFAULTS = {
  concurrency: 8,
  requests: 128,
  inputTokens: 128,
  outputTokens: 128,
  simulator: { gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp16', tp: 1, chunkedPrefill: false },
} as const satisfies { simulator: SimulatorChoice } & Record<string, unknown>;

export const BENCH_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  model: { type: 'string' },
  api: { type: 'string' },
  header: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  concurrency: { type: 'string' },
  rate: { type: 'string' },
  arrival: { type: 'string' },
  burstiness: { type: 'string' },
  'max-concurrency': { type: 'string' },
  'busy-poll': { type: 'boolean' },
  requests: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  ...WORKLOAD_FLAGS,
  tokenizer: { type: 'string' },
  seed: { type: 'string' },
  timeout: { type: 'string' },
  transport: { type: 'string' },
  'no-force-length': { type: 'boolean' },
  slo: { type: 'string', multiple: true },
  json: { type: 'string' },
  raw: { type: 'boolean' },
  'sim-gpu': { type: 'string' },
  'sim-model': { type: 'string' },
  'sim-quant': { type: 'string' },
  'sim-tp': { type: 'string' },
  'sim-max-batch': { type: 'string' },
  'sim-chunked-prefill': { type: 'string' },
} as const satisfies FlagOptions;

type Values = FlagValues<typeof BENCH_FLAGS>;

/** Parses the flags after `teapot bench`. Throws UsageError on anything it cannot use. */
export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv = {}): BenchArgs {
  return benchArgsOf(readFlags(argv, BENCH_FLAGS), env);
}

/** BenchArgs from flags already read (`teapot sweep` reads its own flags beside these). */
export function benchArgsOf(values: Values, env: NodeJS.ProcessEnv): BenchArgs {
  const help = values.help === true;
  if (help) return { ...defaultArgs(), help };

  const url = values.url === undefined ? null : parseUrl(values.url);
  const headers = parseHeaders(values.header ?? []);
  const apiKey = values['api-key'] ?? (url === null ? undefined : env.OPENAI_API_KEY);
  if (values['api-key'] === '') throw new UsageError('--api-key: expected a key, got an empty value');
  if (apiKey && !hasHeader(headers, 'authorization')) headers.authorization = `Bearer ${apiKey}`;

  const simulator = parseSimulator(values);
  if (url !== null) {
    const simFlag = (Object.keys(values) as Array<keyof Values>).find((k) => k.startsWith('sim-'));
    if (simFlag)
      throw new UsageError(
        `--${simFlag} configures the built-in simulator; it cannot be combined with --url`,
      );
  }

  const requests = wholeNumber('--requests', values.requests, 1);
  const durationS = positiveNumber('--duration', values.duration);
  if (requests !== undefined && durationS !== undefined)
    throw new UsageError(
      '--requests and --duration are alternatives: stop after N requests or after S seconds',
    );
  if (values.raw && values.json === undefined)
    throw new UsageError('--raw needs --json PATH|- (it adds per-request records to the JSON result)');
  if (values.json === '') throw new UsageError('--json: expected a file path or - for stdout');
  const timeoutSeconds = positiveNumber('--timeout', values.timeout);

  return {
    help,
    url,
    model: values.model === undefined ? null : nonEmpty('--model', values.model),
    apiKind: parseApiKind(values.api),
    headers,
    simulator,
    workload: parseWorkload(values, BENCH_DEFAULTS),
    load: parseLoad(values),
    // a trace without either is replayed whole (loadWorkload knows its length)
    requests:
      requests ??
      (durationS === undefined && values.trace === undefined ? BENCH_DEFAULTS.requests : undefined),
    durationS,
    warmupRequests: wholeNumber('--warmup', values.warmup, 0) ?? 0,
    seed: wholeNumber('--seed', values.seed, 0),
    timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
    forceOutputLength: values['no-force-length'] !== true,
    transport: oneOf<Transport>('--transport', values.transport, TRANSPORTS) ?? DEFAULT_TRANSPORT,
    slos: parseSlos(values.slo ?? []),
    tokenizer: values.tokenizer === undefined ? null : nonEmpty('--tokenizer', values.tokenizer),
    json: values.json ?? null,
    raw: values.raw === true,
  };
}

function defaultArgs(): BenchArgs {
  return {
    help: false,
    url: null,
    model: null,
    apiKind: 'chat',
    headers: {},
    simulator: { ...BENCH_DEFAULTS.simulator },
    workload: {
      kind: 'synthetic',
      inputTokens: BENCH_DEFAULTS.inputTokens,
      outputTokens: BENCH_DEFAULTS.outputTokens,
    },
    load: { kind: 'closed', concurrency: BENCH_DEFAULTS.concurrency },
    requests: BENCH_DEFAULTS.requests,
    warmupRequests: 0,
    forceOutputLength: true,
    transport: DEFAULT_TRANSPORT,
    slos: [],
    tokenizer: null,
    json: null,
    raw: false,
  };
}

function parseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url: expected an http(s) base URL like http://127.0.0.1:8000/v1, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url: expected an http:// or https:// URL, got "${url.protocol}"`);
  if (url.username || url.password)
    throw new UsageError('--url: put credentials in --api-key or --header, not in the URL');
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/(chat\/)?completions$/.test(path))
    throw new UsageError(
      '--url: give the base URL (e.g. http://host:8000/v1), not the endpoint path; pick the endpoint with --api',
    );
  // A bare host means the OpenAI layout under /v1, which is what every server we target serves.
  url.pathname = path === '' ? '/v1' : path;
  return url.toString().replace(/\/+$/, '');
}

function parseHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of raw) {
    const colon = header.indexOf(':');
    const name = colon < 0 ? '' : header.slice(0, colon).trim();
    if (colon < 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--header: expected 'Name: value' with a valid header name`);
    if (hasHeader(headers, name)) throw new UsageError(`--header: ${name} is given twice`);
    headers[name] = header.slice(colon + 1).trim();
  }
  return headers;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());
}

function parseApiKind(raw: string | undefined): ApiKind {
  return oneOf<ApiKind>('--api', raw, ['chat', 'completions']) ?? 'chat';
}

function parseSimulator(values: Values): SimulatorChoice {
  const choice: SimulatorChoice = {
    ...BENCH_DEFAULTS.simulator,
    gpu:
      oneOf('--sim-gpu', values['sim-gpu'], Object.keys(GPU_PRESETS) as GpuName[]) ??
      BENCH_DEFAULTS.simulator.gpu,
    model:
      oneOf('--sim-model', values['sim-model'], Object.keys(MODEL_PRESETS) as ModelName[]) ??
      BENCH_DEFAULTS.simulator.model,
    quant: oneOf('--sim-quant', values['sim-quant'], WEIGHT_QUANTS) ?? BENCH_DEFAULTS.simulator.quant,
  };
  if (values['sim-tp'] !== undefined) choice.tp = wholeNumber('--sim-tp', values['sim-tp'], 1);
  if (values['sim-max-batch'] !== undefined)
    choice.maxBatch = wholeNumber('--sim-max-batch', values['sim-max-batch'], 1);
  const chunked = oneOf('--sim-chunked-prefill', values['sim-chunked-prefill'], ['on', 'off']);
  if (chunked !== undefined) choice.chunkedPrefill = chunked === 'on';
  return choice;
}

/** An open load's waits: its cap on requests in flight, and whether its thread may sleep. */
function openWaits(values: Values): { maxConcurrency?: number; busyPoll?: true } {
  const maxConcurrency = wholeNumber('--max-concurrency', values['max-concurrency'], 1);
  return { maxConcurrency, ...(values['busy-poll'] === true ? { busyPoll: true as const } : {}) };
}

function parseLoad(values: Values): Load {
  if (values.trace !== undefined) {
    for (const flag of ['concurrency', 'rate', 'arrival', 'burstiness'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(
          `--${flag} cannot be combined with --trace: the trace's timestamps are the arrivals (cap requests in flight with --max-concurrency)`,
        );
    // the rate is the trace's own, set when the file is read (loadWorkload)
    return { kind: 'open', ratePerS: 1, arrival: 'constant', ...openWaits(values) };
  }
  if (values.rate === undefined) {
    for (const flag of ['arrival', 'burstiness', 'max-concurrency', 'busy-poll'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} shapes an open-loop load and needs --rate R`);
    const concurrency = wholeNumber('--concurrency', values.concurrency, 1);
    return { kind: 'closed', concurrency: concurrency ?? BENCH_DEFAULTS.concurrency };
  }
  if (values.concurrency !== undefined)
    throw new UsageError(
      '--concurrency and --rate are alternatives: N requests in flight (closed loop) or R requests/s (open loop); cap an open loop with --max-concurrency',
    );
  const ratePerS = positiveNumber('--rate', values.rate);
  const burstiness = positiveNumber('--burstiness', values.burstiness);
  const arrival =
    oneOf('--arrival', values.arrival, ['poisson', 'gamma', 'constant'] as const) ??
    (burstiness === undefined ? 'poisson' : 'gamma');
  if (burstiness !== undefined && arrival !== 'gamma')
    throw new UsageError(
      `--burstiness is the shape of gamma arrivals; it needs --arrival gamma, not ${arrival}`,
    );
  return { kind: 'open', ratePerS, arrival, burstiness, ...openWaits(values) };
}

function parseSlos(raw: string[]): SloGate[] {
  const gates: SloGate[] = [];
  for (const spec of raw) {
    const gate = parseSlo(spec);
    if (gates.some((g) => g.name === gate.name)) throw new UsageError(`--slo: ${gate.name} is given twice`);
    gates.push(gate);
  }
  return gates;
}

function nonEmpty(flag: string, raw: string): string {
  if (raw.trim() === '') throw new UsageError(`${flag}: expected a value, got an empty string`);
  return raw;
}
