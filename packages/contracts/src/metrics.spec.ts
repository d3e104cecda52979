import { summarize, type RequestRecord } from '@teapot/measure';
import {
  HEADLINES,
  HISTOGRAM_METRICS,
  METRIC_NAMES,
  METRICS,
  STATISTICS,
  headlineFigures,
  summaryValue,
} from './metrics';

function request(index: number, gapsUs: number[], outcome: 'ok' | 'error' = 'ok'): RequestRecord {
  const offsets = [10_000];
  for (const gap of gapsUs) offsets.push(offsets[offsets.length - 1] + gap);
  return {
    index,
    warmup: false,
    outcome,
    scheduledUs: 0,
    startUs: 0,
    ttfbUs: 10_000,
    chunkOffsetsUs: Uint32Array.from(offsets),
    chunkTokens: Uint16Array.from(offsets.map(() => 1)),
    chunkKinds: Uint8Array.from(offsets.map(() => 1)),
    tokenSource: 'usage_delta',
    outputTokens: offsets.length,
    promptTokens: 8,
    targetPromptTokens: 8,
    responseId: null,
    finishReason: 'length',
    ...(outcome === 'error' ? { error: { kind: 'http_5xx', message: 'boom', status: 500 } } : {}),
  } as RequestRecord;
}

describe('metric catalogue', () => {
  const summary = summarize(
    [request(0, [4_000, 6_000, 8_000]), request(1, [2_000, 2_000]), request(2, [1_000], 'error')],
    { durationUs: 2_000_000 },
  );

  it('declares the metrics and statistics the trends and comparisons offer', () => {
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
    expect(STATISTICS).toEqual(['p50', 'p90', 'p95', 'p99', 'p99.9', 'mean', 'p99/p50']);
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
