/**
 * What a run is asked to do, as a profile declares it and the measuring client takes it: the
 * workload, the load, the SLOs and how streams are read.
 */

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
    };

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
