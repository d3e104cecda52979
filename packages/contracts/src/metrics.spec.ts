import type { PercentileSummary, RunSummary } from '@teapot/run-definitions';
import {
  HEADLINES,
  HISTOGRAM_METRICS,
  METRIC_NAMES,
  METRICS,
  headlineFigures,
  summaryValue,
} from './metrics';

function percentiles(p50: number, p99: number): PercentileSummary {
  return {
    count: 4,
    mean: (p50 + p99) / 2,
    std: 1,
    min: p50 / 2,
    max: p99 * 2,
    p50,
    p90: p99,
    p95: p99,
    p99,
    p999: p99,
  };
}

// Two successful requests and one failed one over 2 s; no SLO, so no goodput.
const summary: RunSummary = {
  requests: { total: 3, succeeded: 2, failed: 1, incomplete: 0, warmup: 0 },
  ttftMs: percentiles(10, 10),
  ttfbMs: percentiles(10, 10),
  tpotMs: percentiles(2, 3),
  itlMs: percentiles(3, 7.9),
  interChunkMs: percentiles(3, 7.9),
  e2eMs: percentiles(14, 28),
  outputTokens: 7,
  promptTokens: 16,
  outputTokensPerS: 3.5,
  requestsPerS: 1,
  goodputRps: null,
  errorsByClass: { http_status: 1 },
  tokenSources: { usage_delta: 2 },
  durationS: 2,
};

describe('metric catalogue', () => {
  it('declares the metrics the trends and comparisons offer', () => {
    expect(METRIC_NAMES).toEqual(
      expect.arrayContaining([
        'itl',
        'tpot',
        'ttft',
        'e2e',
        'output_tokens_per_s',
        'requests_per_s',
        'goodput',
        'error_rate',
      ]),
    );
    expect([...HISTOGRAM_METRICS].sort()).toEqual(['e2e', 'itl', 'tpot', 'ttft']);
    expect(METRICS.itl.weighting).toBe('token');
    expect(METRICS.tpot.weighting).toBe('request');
    expect(METRICS.output_tokens_per_s.direction).toBe('higher-is-better');
    expect(METRICS.itl.statistics).toContain('p99/p50');
  });

  it('names every headline column once, as snake_case of its field', () => {
    const columns = HEADLINES.map((h) => h.column);
    expect(new Set(columns).size).toBe(columns.length);
    for (const h of HEADLINES) {
      expect(h.column).toBe(h.field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    }
  });

  it('reads headline figures from the exact run summary', () => {
    const figures = headlineFigures(summary);
    expect(figures.itlP99Ms).toBe(summary.itlMs?.p99);
    expect(figures.ttftP50Ms).toBe(summary.ttftMs?.p50);
    expect(figures.outputTokensPerS).toBe(summary.outputTokensPerS);
    // 1 of 3 finished requests failed.
    expect(figures.errorRate).toBeCloseTo(1 / 3, 12);
    expect(figures.goodputRps).toBeNull();
  });

  it('gives the ITL tail ratio and pooled totals of rates', () => {
    expect(summaryValue(summary, 'itl', 'p99/p50')).toBeCloseTo(
      (summary.itlMs?.p99 ?? NaN) / (summary.itlMs?.p50 ?? NaN),
      12,
    );
    expect(summaryValue(summary, 'output_tokens_per_s', 'p99')).toBeNull();
    expect(METRICS.output_tokens_per_s.totals(summary)).toEqual({ numerator: 7, denominator: 2 });
    expect(METRICS.error_rate.totals(summary)).toEqual({ numerator: 1, denominator: 3 });
    expect(METRICS.goodput.totals(summary)).toBeNull();
  });
});
