/**
 * What a run is asked to do, as a profile declares it and the measuring client takes it: the
 * workload, the load, the SLOs and how streams are read.
 */

/** Pause between a session's turns (a user reading and typing), drawn from the run's seed. */
export interface ThinkTime {
  /** constant: every pause is meanMs; exponential: memoryless pauses of mean meanMs. */
  distribution: 'constant' | 'exponential';
  meanMs: number;
}

/** One turn of a conversation: the user's message and, when known, the answer that followed it. */
export interface ConversationTurn {
  user: string;
  /** The recorded answer, sent back as the assistant's message in later turns. */
  assistant?: string;
  /** max_tokens of this turn; default: the recorded answer's words, else the workload's outputTokens. */
  outputTokens?: number;
}

export interface Conversation {
  /** Sent first in every turn of the session (chat: a system message). */
  system?: string;
  turns: ConversationTurn[];
}

/** Where a `conversations` workload came from, kept with the run to say what was sent. */
export interface DatasetSource {
  /** SHA-256 (hex) of the uploaded or read file. */
  sha256: string;
  format: DatasetFormat;
  /** Conversations in the file, kept by the filters, and sent (sampled). */
  read: number;
  kept: number;
  sampled: number;
  turns: number;
}

export const DATASET_FORMATS = ['sharegpt', 'openai'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** How a dataset file becomes conversations: lengths in tokens (whitespace-separated words). */
export interface DatasetFilters {
  /** Conversations whose first turn's prompt is shorter are dropped. */
  minInputTokens?: number;
  /** A conversation is cut before the first turn whose prompt (history included) would exceed this. */
  maxInputTokens?: number;
  /** ... or whose recorded answer exceeds this. */
  maxOutputTokens?: number;
  /** Keep at most this many turns of each conversation. */
  maxTurns?: number;
  /** Send this many conversations drawn without replacement (seeded); default all, shuffled. */
  sample?: number;
  /** Seed of the draw and order; default the run's seed. */
  sampleSeed?: number;
}

export const TRACE_FORMATS = ['teapot', 'mooncake', 'burstgpt', 'azure'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** One line of a trace: when it arrives (ms after the trace's first line) and the lengths it asks for. */
export interface TraceRequest {
  atMs: number;
  inputTokens: number;
  outputTokens: number;
}

/** Where a `trace` workload came from and how it was replayed, kept with the run to say what was sent. */
export interface TraceSource {
  /** SHA-256 (hex) of the uploaded or read file. */
  sha256: string;
  format: TraceFormat;
  /** Requests in the file, and the time from its first to its last, seconds (before the speed factor). */
  lines: number;
  spanS: number;
  /** Replay speed: 2 sends the trace twice as fast (gaps halved). */
  speed: number;
}

/** How a session-based workload treats the answers and the pauses between turns. */
export interface SessionOptions {
  thinkTime?: ThinkTime;
  /**
   * Send the model's own streamed answer back in the next turn, as a real client does. Off by default:
   * collecting the text parses every chunk, work the measuring loop otherwise skips.
   */
  actualAnswers?: boolean;
}

/** What each request asks for. */
export type Workload =
  | {
      kind: 'synthetic';
      /** Target prompt length in tokens (approximate: the server's count is recorded). */
      inputTokens: number;
      outputTokens: number;
      /** Relative spread of lengths, 0 = all equal (default). */
      lengthJitter?: number;
    }
  | {
      kind: 'dataset';
      /** Prompts to cycle through; a chat workload sends each prompt as one user message. */
      prompts: Array<{ prompt: string; outputTokens?: number }>;
      outputTokens?: number;
    }
  | ({
      kind: 'multi-turn';
      /** Turns per session; each resends the conversation so far plus a new user message. */
      turns: number;
      /** Tokens of each new user message. */
      inputTokens: number;
      outputTokens: number;
      lengthJitter?: number;
      /** A system prompt of this many tokens opens every session (0: none). */
      systemTokens?: number;
    } & SessionOptions)
  | ({
      kind: 'conversations';
      /** Sessions in order (sampled and filtered already); the run cycles through them. */
      conversations: Conversation[];
      /** max_tokens of turns whose length neither they nor their recorded answer give. */
      outputTokens?: number;
      source?: DatasetSource;
    } & SessionOptions)
  | {
      kind: 'shared-prefix';
      /** Distinct prefixes (P), each `prefixTokens` long (L) and used by `requestsPerPrefix` requests (M). */
      prefixes: number;
      prefixTokens: number;
      requestsPerPrefix: number;
      /** Each request's own suffix after its prefix. */
      suffixTokens: number;
      outputTokens: number;
    }
  | {
      kind: 'trace';
      /**
       * Requests in arrival order: each is sent at atMs / speed after the load phase starts (an open
       * load's own arrival process is not used), with a prompt of inputTokens and max_tokens outputTokens.
       */
      requests: TraceRequest[];
      /** Replay speed, default 1: 2 halves every gap. */
      speed?: number;
      source?: TraceSource;
    };

/** A profile's workload: a measured one, or one still naming an uploaded dataset or trace. */
export type ProfileWorkload =
  | Workload
  | ({
      kind: 'dataset-asset';
      /** SHA-256 of a dataset uploaded with POST /assets. */
      sha256: string;
      format: DatasetFormat;
      outputTokens?: number;
    } & DatasetFilters &
      SessionOptions)
  | {
      kind: 'trace-asset';
      /** SHA-256 of a trace uploaded with POST /assets (kind `trace`). */
      sha256: string;
      speed?: number;
    };

/**
 * A profile's tokenizer.json: a path under the worker's TEAPOT_TOKENIZER_DIR, or a file uploaded with
 * POST /assets (kind tokenizer), named by its SHA-256 as a `dataset-asset` workload names a dataset.
 */
export type ProfileTokenizer = string | { sha256: string };

/** How requests are issued: a fixed number in flight, or arrivals at a rate. */
export type Load =
  | { kind: 'closed'; concurrency: number }
  | {
      kind: 'open';
      ratePerS: number;
      /** poisson: exponential gaps; gamma: gamma gaps with shape = burstiness (<1 burstier). */
      arrival: 'poisson' | 'gamma' | 'constant';
      burstiness?: number;
      /** Cap on requests in flight; arrivals beyond it wait (and their queueing is visible). */
      maxConcurrency?: number;
      /**
       * The measuring thread polls without sleeping until every arrival is sent: sends keep their
       * schedule where waking a sleeping thread is slow (virtual machines), at the cost of one core.
       */
      busyPoll?: boolean;
    };

/** Service-level objectives in milliseconds. A request meets them all, or it is not goodput. */
export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
  /** Every one of the request's inter-token latencies must be at or under this. */
  itlMs?: number;
  e2eMs?: number;
}

/** How a run reads its streams; the first is the default (measure's RunOptions.transport). */
export const TRANSPORTS = ['http1', 'undici'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export const DEFAULT_TRANSPORT: Transport = TRANSPORTS[0];
