import { syntheticRunResult } from '@teapot/db/testing';
import { summarize, type RunResult } from '@teapot/measure';
import type { TrendQuery } from '../trend';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** A Monday, so weekly buckets start on it. */
export const T0 = Date.UTC(2026, 10, 2);

export interface StretchedRun {
  seed: number;
  /** Every gap after the first token is multiplied by it (a slower decode); TTFT stays. */
  scale: number;
  requests: number;
  tokensPerRequest: number;
  /** How many of its requests failed (the first ones). */
  failed?: number;
  saturated?: boolean;
}

/** A synthetic run whose token gaps are stretched by `scale`, with its summary recomputed. */
export function stretchedRunResult(run: StretchedRun): RunResult {
  const result = syntheticRunResult({
    requests: run.requests,
    tokensPerRequest: run.tokensPerRequest,
    seed: run.seed,
  });
  for (const r of result.requests) {
    const first = r.chunkOffsetsUs[0];
    for (let k = 1; k < r.chunkOffsetsUs.length; k++) {
      r.chunkOffsetsUs[k] = first + Math.round((r.chunkOffsetsUs[k] - first) * run.scale);
    }
  }
  for (const r of result.requests.slice(0, run.failed ?? 0)) {
    r.outcome = 'error';
    r.error = { kind: 'http_status', message: 'upstream failed', status: 503 };
  }
  const durationUs = Math.round(result.durationUs * run.scale);
  return {
    ...result,
    durationUs,
    summary: summarize(result.requests, { durationUs }),
    client: { ...result.client, saturated: run.saturated ?? false },
  };
}

/** P99 ITL per day over the first `days` days from T0. */
export function dailyItlP99(days: number): TrendQuery {
  return {
    metric: 'itl',
    statistic: 'p99',
    bucket: 'day',
    from: new Date(T0),
    to: new Date(T0 + days * DAY),
  };
}
