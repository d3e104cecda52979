/**
 * The raw record of a benchmark run and the options that produce it. Everything teapot reports is
 * derived from these records (see metrics.ts); storage keeps them so any metric can be recomputed.
 *
 * Times: one monotonic clock (process.hrtime.bigint()) per run, anchored once to the wall clock.
 * Offsets are integer microseconds. Request offsets are relative to the run's monotonic anchor;
 * chunk offsets are relative to their request's start (the instant just before the request is
 * written to the socket).
 */

import type { LookupFunction } from 'node:net';
import type { TokenizerIdentity, TokenizerSource } from '@teapot/tokenizer';
import type {
  ConnectBackoffReport,
  ErrorClass,
  Load,
  RunSummary,
  Slo,
  TokenCountSource,
  Transport,
  Workload,
} from '@teapot/run-definitions';

export {
  DEFAULT_TRANSPORT,
  ERROR_CLASSES,
  TRANSPORTS,
  type ConnectBackoffReport,
  type ErrorClass,
  type Load,
  type PercentileSummary,
  type PromptTokenSource,
  type RequestMetrics,
  type RunSummary,
  type Slo,
  type TokenCountSource,
  type Transport,
  type TurnSummary,
  type Workload,
  type WorkloadReport,
  type Conversation,
  type ConversationTurn,
  type DatasetFilters,
  type DatasetFormat,
  type DatasetSource,
  type ProfileTokenizer,
  type ProfileWorkload,
  type SessionOptions,
  type ThinkTime,
  type SendLateness,
  type TraceFormat,
  type TraceRequest,
  type TraceSource,
  DATASET_FORMATS,
  TRACE_FORMATS,
} from '@teapot/run-definitions';

export type ApiKind = 'chat' | 'completions';

export const CHUNK_KIND = {
  /** Carries visible output text. */
  content: 0,
  /** Carries reasoning text (`reasoning_content` / `reasoning`). */
  reasoning: 1,
  /** Carries a tool-call delta. */
  toolCall: 2,
  /** Role-only, empty delta, or a usage-only chunk: carries no output token. */
  empty: 3,
} as const;
export type ChunkKind = (typeof CHUNK_KIND)[keyof typeof CHUNK_KIND];

export interface RequestError {
  kind: ErrorClass;
  message: string;
  /** HTTP status for http_status / rate_limited. */
  status?: number;
  /** Retry-After in seconds, as the server sent it, for 429s. */
  retryAfterS?: number;
}

/**
 * How the request ended. `incomplete`: still running when a duration-bounded run ended or the run was
 * aborted; it was cut off, carries `error.kind` 'aborted' saying why, and is kept out of every metric.
 */
export type RequestOutcome = 'ok' | 'error' | 'incomplete';

/**
 * One request's raw record. Per-chunk data lives in typed arrays of equal length (one entry per
 * SSE data event that parsed as a completion chunk, including role-only and usage-only chunks):
 * about 7 bytes per chunk, so a million token timings fit in a few MB.
 */
export interface RequestRecord {
  /** Issue order within the run, warm-up requests included. */
  index: number;
  warmup: boolean;
  outcome: RequestOutcome;
  error?: RequestError;
  /** Intended send time (open loop), from the run anchor; equals startUs for closed loop. */
  scheduledUs: number;
  /** Actual start, from the run anchor: just before the request was written. */
  startUs: number;
  /** Time to first response byte (headers), from request start; null if none arrived. */
  ttfbUs: number | null;
  /** Arrival of each chunk, from request start, taken when the bytes arrived (before parsing). */
  chunkOffsetsUs: Uint32Array;
  /** Output tokens carried by each chunk. */
  chunkTokens: Uint16Array;
  /** CHUNK_KIND of each chunk. */
  chunkKinds: Uint8Array;
  /** Where chunkTokens came from. */
  tokenSource: TokenCountSource;
  /**
   * The streamed text, kept only while a run with a tokenizer has seen no usage from the server, and
   * only until the tokenizer counts it after the run (RunResult's records never carry it).
   */
  outputText?: string;
  /** Output tokens: the server's usage.completion_tokens when reported, else the chunk sum. */
  outputTokens: number;
  /** Prompt tokens as the server reported them (usage.prompt_tokens); null if not reported. */
  promptTokens: number | null;
  /**
   * The prompt length teapot asked for (synthetic workloads) or counted with the run's tokenizer, in
   * tokens: exact with a tokenizer, the word count of a synthetic prompt without one (see
   * summary.promptTokenSources).
   */
  targetPromptTokens: number | null;
  /** The response `id` of the completion, when sent: ties the record to server-side logs/ground truth. */
  responseId: string | null;
  /** Server's finish_reason of the last choice, if sent. */
  finishReason: string | null;
  /** Session workloads: the session (numbered in start order from 0) and the turn in it (0 = first). */
  sessionId: number | null;
  turnIndex: number | null;
}

export interface ClientHealth {
  /** Event-loop delay over the run, in ms (perf_hooks.monitorEventLoopDelay). */
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number };
  /**
   * How late the client read the response bytes, estimated per read (how long it waited behind the
   * earlier reads of its poll phase and for the loop's other work), ms; absent when no byte arrived.
   */
  readLagMs?: { p50: number; p99: number; max: number };
  /**
   * The measuring client's estimated P99 timestamp error is over SATURATION.boundMs (5 ms), so the run's
   * tail latencies may show the client: compare the run with care. `saturatedReason` says why and what
   * to do, in plain words.
   */
  saturated: boolean;
  saturatedReason?: string;
  /** Estimated P99 error of a token timestamp, ms: the read lag's P99 (the loop delay's without reads). */
  timingErrorP99Ms?: number;
  /** Client CPU time over the measured window, as a percentage of one core. */
  cpuPercent?: number;
  /** Client CPU time (user + system) over the measured window, us: the measuring thread's own on Linux, the process's elsewhere. */
  cpuUs?: number;
}

export interface StreamOptionsReport {
  /** We asked for `stream_options.include_usage` (and continuous usage stats). */
  requested: boolean;
  /** The server rejected them and requests were retried without; counts came from elsewhere. */
  rejectedByServer: boolean;
  /** Requests that were sent again without stream_options after a rejection. */
  retriedRequests?: number;
}

export interface RunResult {
  /** Wall-clock time (ms since epoch) at the monotonic anchor. */
  wallAnchorMs: number;
  /** process.hrtime.bigint() at the anchor, as a decimal string (JSON-safe). */
  monotonicAnchorNs: string;
  /** The measured window (warm-up excluded): from the first measured send to the last measured end. */
  durationUs: number;
  requests: RequestRecord[];
  summary: RunSummary;
  client: ClientHealth;
  streamOptions: StreamOptionsReport;
  /** True when the run was aborted from outside before it finished. */
  aborted: boolean;
  /** How the streams were read: part of the measurement method, so kept with the figures. */
  transport: Transport;
  /** The version of @teapot/measure that measured (MEASURE_VERSION), also part of the method. */
  measureVersion: string;
  /** Connection failures and the pauses they caused (also in summary.connectBackoff, which is stored). */
  connectBackoff: ConnectBackoffReport;
  /** The tokenizer the run counted with (RunOptions.tokenizer); absent without one. */
  tokenizer?: TokenizerIdentity;
  /** What was done before the measured window so that it pays no JIT or connection set-up (see RunOptions.warmUp). */
  warmUp: { chunks: number; connections: number; durationMs: number };
}

export interface Target {
  /** Base URL up to and including the version segment, e.g. http://host:8000/v1 */
  baseUrl: string;
  apiKind: ApiKind;
  model: string;
  /** Extra request headers, e.g. { authorization: 'Bearer ...' }. Never logged. */
  headers?: Record<string, string>;
  /**
   * Resolves the host at connect time in place of dns.lookup (same signature; it may be called with
   * `all: true`), for every connection either transport opens, e.g. to check the resolved address
   * against a policy. Not called for an IP-literal host. A lookup that refuses an address should fail
   * with ClientConfigError, so that the requests count as `client_config`, not as the endpoint down.
   */
  lookup?: LookupFunction;
}

/** Live figures for a progress display; warm-up requests included. */
export interface Progress {
  /** Requests that ended ok. */
  completed: number;
  /** Requests that ended with an error. */
  failed: number;
  inFlight: number;
  /** Warm-up plus measured requests, null for a duration-bounded run. */
  total: number | null;
  /** Output tokens streamed so far, in-flight requests included. */
  outputTokens: number;
  elapsedS: number;
  /** Output tokens/s over the last second or so. */
  tokensPerS: number;
}

export interface RunOptions {
  target: Target;
  workload: Workload;
  load: Load;
  /** Stop after this many measured requests (warm-up excluded). */
  requests?: number;
  /** Or stop issuing after this many seconds; requests still running are marked incomplete. */
  durationS?: number;
  warmupRequests?: number;
  /** Makes prompts, lengths and arrival times reproducible. */
  seed?: number;
  /** Whole-request timeout. */
  timeoutMs?: number;
  /** Longest silence allowed between chunks before the request counts as stalled. */
  stallTimeoutMs?: number;
  /**
   * Before the first request (default true): run the read and parse path on canned chunks from an
   * in-process loopback responder (the endpoint sees nothing) and open the run's connections, so that
   * the first measured tokens pay no JIT compilation or connection set-up. Not `warmupRequests`, which
   * sends real requests to the endpoint and leaves them out of the figures.
   */
  warmUp?: boolean;
  /**
   * The model's tokenizer.json: synthetic prompts are built to their length in its tokens, dataset
   * prompts counted with it, and output the server reports no usage for counted with it after the run.
   */
  tokenizer?: TokenizerSource;
  /** Ask the server to produce exactly the output length (ignore_eos / min_tokens). */
  forceOutputLength?: boolean;
  slo?: Slo;
  /**
   * How streams are read. `http1` (default): teapot's own HTTP/1.1 reader, which timestamps each socket
   * read before any other work and costs less per chunk. `undici`: undici's Pool, kept for comparison
   * and for endpoints http1 cannot read. The accuracy bench compares them (packages/measure/README.md).
   */
  transport?: Transport;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
}
