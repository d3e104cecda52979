import { LagHistogram } from './lag-histogram';
import { mulberry32 } from '../random';

/** Nearest-rank percentile of sorted values, the definition LagHistogram approximates. */
function nearestRank(sorted: number[], p: number): number {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

describe('LagHistogram', () => {
  it('gives each percentile within its 1.1% bucket of the exact one, and the exact maximum', () => {
    const random = mulberry32(7);
    const histogram = new LagHistogram();
    // lags from 1 us to ~1 s, log-uniform, as reads behind a busy loop spread
    const values = Array.from({ length: 20_000 }, () => Math.round(1e3 * 1e6 ** random()));
    for (const value of values) histogram.record(value);
    const sorted = [...values].sort((a, b) => a - b);
    expect(histogram.count).toBe(20_000);
    expect(histogram.max).toBe(sorted[sorted.length - 1]);
    for (const p of [1, 50, 90, 99, 99.9]) {
      const exact = nearestRank(sorted, p);
      const estimate = histogram.percentile(p);
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect(estimate / exact).toBeLessThan(1.011);
    }
  });

  it('keeps values past its range in the last bucket, with the maximum exact, and starts afresh on reset', () => {
    const histogram = new LagHistogram();
    expect([histogram.count, histogram.max, histogram.percentile(99)]).toEqual([0, 0, 0]);
    histogram.record(0.2);
    histogram.record(3e11);
    expect(histogram.percentile(50)).toBeLessThan(1.02);
    expect(histogram.percentile(100)).toBe(3e11);
    expect(histogram.max).toBe(3e11);
    histogram.reset();
    expect([histogram.count, histogram.max, histogram.percentile(50)]).toEqual([0, 0, 0]);
    histogram.record(5000);
    expect(histogram.max).toBe(5000);
    expect(histogram.percentile(99)).toBe(5000);
  });
});
