import type { PercentileSummary, RunSummary } from '@teapot/measure';

export function distribution(p50: number, extra: Partial<PercentileSummary> = {}): PercentileSummary {
  return {
    count: 100,
    mean: p50 * 1.05,
    std: p50 / 10,
    min: p50 / 2,
    max: p50 * 3,
    p50,
    p90: p50 * 1.5,
    p95: p50 * 1.7,
    p99: p50 * 2,
    p999: p50 * 2.5,
    ...extra,
  };
}

/** A run of 64 requests: every figure is known, so tests can look for it in what is rendered. */
export function knownSummary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    requests: { total: 64, succeeded: 62, failed: 2, incomplete: 0, warmup: 0 },
    ttftMs: distribution(40, { p90: 55.5, p99: 71.25, p999: 80.125, mean: 42.5 }),
    ttfbMs: distribution(38),
    tpotMs: distribution(6.5, { p99: 10.5 }),
    itlMs: distribution(6.25, { p99: 12.5, p999: 20.75 }),
    interChunkMs: distribution(6.3),
    e2eMs: distribution(840.5, { p99: 1890.25 }),
    outputTokens: 7936,
    promptTokens: 8060,
    outputTokensPerS: 1234.56,
    requestsPerS: 9.75,
    goodputRps: null,
    errorsByClass: { http_status: 1, timeout: 1 },
    tokenSources: { usage_delta: 62 },
    durationS: 6.43,
    ...overrides,
  };
}
