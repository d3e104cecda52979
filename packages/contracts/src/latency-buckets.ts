import type { MetricName } from './metrics';

const seconds = (ms: readonly number[]): readonly number[] => Object.freeze(ms.map((value) => value / 1000));

/**
 * Bucket bounds (seconds) for per-token latencies (ITL, TPOT) in Prometheus and OTLP histograms:
 * 0.5 ms steps up to 10 ms, because FP8 decode runs at 3-7 ms per token and a regression there is a
 * fraction of a millisecond. OpenTelemetry's GenAI advice for TPOT starts at 10 ms, which would put
 * every such token in its first bucket.
 */
export const TOKEN_LATENCY_BUCKETS_S = seconds([
  0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10, 12.5, 15, 17.5, 20, 25, 30,
  40, 50, 75, 100, 150, 200, 300, 500, 1000, 2500,
]);

/** Bucket bounds (seconds) for per-request latencies (TTFT, end to end): a few ms to two minutes, ~25% apart. */
export const REQUEST_LATENCY_BUCKETS_S = seconds([
  1, 2.5, 5, 7.5, 10, 12.5, 15, 20, 25, 30, 40, 50, 60, 75, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000,
  1250, 1500, 2000, 2500, 3000, 4000, 5000, 7500, 10000, 15000, 20000, 30000, 60000, 120000,
]);

/** The histogram bounds of each latency metric teapot exports as a histogram. */
export const LATENCY_BUCKETS_S = {
  itl: TOKEN_LATENCY_BUCKETS_S,
  tpot: TOKEN_LATENCY_BUCKETS_S,
  ttft: REQUEST_LATENCY_BUCKETS_S,
  e2e: REQUEST_LATENCY_BUCKETS_S,
} as const satisfies Partial<Record<MetricName, readonly number[]>>;
