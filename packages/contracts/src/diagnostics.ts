/**
 * Why a run was as fast as it was: what the server said about itself while the run measured (scraped
 * from its Prometheus endpoint) and what the per-token record shows when the server says nothing.
 * A figure that could not be derived is absent, never zero: 0 preemptions and "preemptions unknown"
 * are different answers.
 */

/** Derived from the server's own metrics, scraped while the run measured. */
export interface ServerDiagnostics {
  /** "metrics unavailable: ..." when no scrape succeeded, or what went wrong with some of them. */
  error?: string;
  /** Scrapes that were parsed, and those that failed. */
  scrapes: number;
  failedScrapes: number;
  /** Requests the server was running and keeping waiting, over the run's scrapes. */
  runningMean?: number;
  runningMax?: number;
  waitingMean?: number;
  waitingMax?: number;
  /** Share of the KV cache in use, 0..1. */
  kvCacheUsageMean?: number;
  kvCacheUsageMax?: number;
  /** Preemptions during the run (counter increase, resets handled as Prometheus does). */
  preemptions?: number;
  /** Prefix-cache hits over queries during the run, in tokens, 0..1. */
  prefixCacheHitRate?: number;
  /** Spec decoding: accepted over drafted tokens during the run, 0..1. */
  specDecodeAcceptanceRate?: number;
  /** Spec decoding: tokens per verification step, 1 + accepted / drafts. */
  specDecodeMeanAcceptedLength?: number;
  /** The server's own latency over the run, from its histograms' increase (ms). */
  serverTtftMeanMs?: number;
  serverTtftP50Ms?: number;
  serverTtftP99Ms?: number;
  serverItlMeanMs?: number;
  serverItlP50Ms?: number;
  serverItlP99Ms?: number;
}

/** Derived from the run's per-token record alone (computed by `@teapot/measure`, defined beside it). */
export type { ClientDiagnostics } from '@teapot/run-definitions';
