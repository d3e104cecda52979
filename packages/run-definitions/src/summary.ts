import type { DatasetSource, TraceSource } from './profile';

/**
 * What a run reports: its summary (stored as `runs.summary` and read by every report) and the
 * per-request metrics it is computed from. Milliseconds in summaries, microseconds per request.
 */

/** Exact percentiles of a run's samples (numpy's linear method, see percentile.ts). */
export interface PercentileSummary {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

/** Summary metrics of a run, in milliseconds unless the name says otherwise. */
export interface RunSummary {
  /** total = succeeded + failed + incomplete, warm-up excluded (counted apart). */
  requests: { total: number; succeeded: number; failed: number; incomplete: number; warmup: number };
  /** Request-weighted, over successful requests. */
  ttftMs: PercentileSummary | null;
  ttfbMs: PercentileSummary | null;
  /** Request-weighted, over successful requests with at least 2 output tokens. */
  tpotMs: PercentileSummary | null;
  /** Token-weighted: every output token after each request's first token chunk is one sample. */
  itlMs: PercentileSummary | null;
  /** Raw gaps between consecutive token-carrying chunks. */
  interChunkMs: PercentileSummary | null;
  e2eMs: PercentileSummary | null;
  /**
   * Open-loop runs: TTFT and E2E from each request's scheduled send time, not from when it was written:
   * they include the time a request waited for a free slot (maxConcurrency) or a late client, which
   * the figures from the write leave out (coordinated omission). Absent for closed loops.
   */
  ttftFromScheduleMs?: PercentileSummary | null;
  e2eFromScheduleMs?: PercentileSummary | null;
  /** Open-loop runs: how late requests were written after their scheduled time. */
  sendLateness?: SendLateness;
  outputTokens: number;
  promptTokens: number;
  /** Output tokens per second of measured wall time (first start to last end). */
  outputTokensPerS: number;
  requestsPerS: number;
  /** Requests per second meeting every SLO; null when the profile sets none. */
  goodputRps: number | null;
  errorsByClass: Partial<Record<ErrorClass, number>>;
  /** Successful requests by where their token counts came from. */
  tokenSources: Partial<Record<TokenCountSource, number>>;
  /**
   * Successful requests by where their prompt count came from (`promptTokens` sums `usage` and
   * `tokenizer` counts; `words` is the word-count estimate of a synthetic prompt, not summed).
   */
  promptTokenSources?: Partial<Record<PromptTokenSource, number>>;
  /**
   * The server's prompt count minus the tokenizer's count of the prompt text, over requests with
   * both: what the chat template (role markers, BOS) adds. Absent without a tokenizer or usage.
   */
  promptOverheadTokens?: { min: number; max: number };
  /** The tokenizer that built the prompts and counted what the server did not (name, SHA-256, size). */
  tokenizer?: { name: string; sha256: string; sizeBytes: number };
  /** The measured wall time the rates are over. */
  durationS: number;
  /** How the run paused while the endpoint could not be reached (set by runBenchmark). */
  connectBackoff?: ConnectBackoffReport;
  /** Session workloads: TTFT by turn index, and the first turns against the later ones. */
  turns?: TurnSummary;
  /** What was sent and how much of it a prefix cache could reuse (set by runBenchmark). */
  workload?: WorkloadReport;
}

/** Open-loop send lateness over the measured requests sent: write time minus scheduled time. */
export interface SendLateness {
  sent: number;
  /** Sends later than thresholdMs after their scheduled time. */
  late: number;
  thresholdMs: number;
  /** Lateness percentiles, ms (slightly negative: sent up to 0.2 ms early, within the timer's tolerance). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** TTFT of successful measured requests by their turn in a session (turn 0 = the session's first). */
export interface TurnSummary {
  byTurn: Array<{ turn: number; ttftMs: PercentileSummary | null }>;
  firstTtftMs: PercentileSummary | null;
  laterTtftMs: PercentileSummary | null;
}

/**
 * What the run sent, warm-up requests included (a server's cache saw them too). Tokens here are
 * whitespace-separated words, the unit prompts are built in.
 */
export interface WorkloadReport {
  kind: string;
  /** Session workloads: sessions started. */
  sessions?: number;
  /** Shared-prefix workloads: distinct prefixes sent. */
  prefixes?: number;
  /** Prompt tokens of every request sent. */
  promptTokens: number;
  /**
   * Of those, the tokens that repeat an earlier request's prompt word for word from its start (a
   * shared prefix after its first use, a session's previous prompt): what a prefix cache could hit.
   */
  reusablePromptTokens: number;
  /** reusablePromptTokens / promptTokens; null when nothing was sent. */
  expectedReuseShare: number | null;
  dataset?: DatasetSource;
  trace?: TraceSource;
}

/**
 * Connection failures and the pauses they caused (measure's connect-backoff.ts): after a request fails
 * before any response byte, new requests wait and one probe at a time tests the endpoint.
 */
export interface ConnectBackoffReport {
  /** Stretches of consecutive connection failures. */
  outages: number;
  /** Pauses taken (each one jittered, doubling up to a bound). */
  pauses: number;
  /** Sum of the pauses, ms. */
  pausedMs: number;
  longestOutageMs: number;
  /** The endpoint stayed unreachable past the bound and the run ended early. */
  gaveUp: boolean;
}

/** Where a chunk's output-token count came from, most trustworthy first. */
export type TokenCountSource =
  /** `usage.completion_tokens` deltas on every chunk (continuous usage stats). */
  | 'usage_delta'
  /** Only the final `usage` is known; it is spread over the token-carrying chunks. */
  | 'usage_final'
  /** No usage: the run's tokenizer counted the streamed text, spread over the token-carrying chunks. */
  | 'tokenizer'
  /** One token per token-carrying chunk: the last resort when the server reports no usage. */
  | 'chunk';

/** Where a request's prompt token count came from. */
export type PromptTokenSource =
  /** `usage.prompt_tokens` from the server. */
  | 'usage'
  /** The run's tokenizer: the prompt text's own tokens (no chat template). */
  | 'tokenizer'
  /** A synthetic prompt's word count, which is about its token count. */
  | 'words';

/**
 * How a failed request failed (`RequestError.kind`, `run_requests.error_class`). Beside the connection
 * and HTTP classes: `malformed_stream` covers any response that breaks the protocol (its head or its
 * framing, or data that is not a chunk object); `invalid_usage` a `usage` count that is no token count
 * (negative, fractional or absurdly large); `no_tokens` a stream that completed without a single chunk
 * of content, reasoning or tool call; `client_config` what the client refused to send or connect to
 * (its own configuration or policy, not an endpoint fault); `aborted` a request cut off by the run's end.
 */
export const ERROR_CLASSES = [
  'connect_refused',
  'connect_error',
  'timeout',
  'http_status',
  'rate_limited',
  'stream_stalled',
  'malformed_stream',
  'stream_error_event',
  'truncated_stream',
  'invalid_usage',
  'no_tokens',
  'client_config',
  'aborted',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** One request's figures, in microseconds; null where undefined (e.g. TPOT below 2 tokens). */
export interface RequestMetrics {
  /** Request start -> first token chunk. */
  ttftUs: number | null;
  /** Request start -> last token chunk (not the trailing usage chunk or [DONE]). */
  e2eUs: number | null;
  /** (t_last - t_first) / (n - 1), n = tokens in token chunks; null below 2 tokens. */
  tpotUs: number | null;
  /** One sample per token after the first token chunk: a chunk's gap split evenly over its tokens. */
  itlUs: Float64Array;
  /** Gaps between consecutive token chunks. */
  interChunkUs: Float64Array;
  /** Tokens in token chunks: the tokens whose arrival was timed. */
  timedTokens: number;
}
