import type { ScrapePoint } from './catalogue';
import {
  counterIncrease,
  deriveServerDiagnostics,
  histogramIncrease,
  histogramQuantile,
  increaseSoFar,
  seriesOf,
  type TimedPoint,
} from './derive';

describe('counterIncrease', () => {
  it('adds the steps of a counter that only grows', () => {
    expect(counterIncrease([10, 12, 12, 20])).toBe(10);
  });

  it('reads a drop as a reset (a server restart) and counts the new value from 0, as Prometheus does', () => {
    // 10 -> 15 (+5), restart, 3 counted since (+3), -> 7 (+4)
    expect(counterIncrease([10, 15, 3, 7])).toBe(12);
    expect(counterIncrease([5, 0, 0])).toBe(0);
  });

  it('gives the increase so far at each sample, skipping gaps', () => {
    expect(increaseSoFar([10, 15, null, 3, 7])).toEqual([0, 5, null, 8, 12]);
  });

  it('knows no increase from one sample', () => {
    expect(counterIncrease([4])).toBeUndefined();
    expect(counterIncrease([])).toBeUndefined();
  });
});

describe('histogramQuantile, Prometheus histogram_quantile on classic buckets', () => {
  const h = { le: [0.02, 0.04, 0.1, Infinity], counts: [2, 15, 40, 50], sum: 5, count: 50 };

  it('interpolates linearly inside the bucket the rank falls in', () => {
    // rank 25: bucket (0.04, 0.1] holds 15 < r <= 40: 0.04 + 0.06 x (25 - 15) / 25
    expect(histogramQuantile(0.5, h)).toBeCloseTo(0.064, 12);
    // rank 1 in the first bucket, from 0: 0.02 x 1 / 2
    expect(histogramQuantile(0.02, h)).toBeCloseTo(0.01, 12);
  });

  it('gives the highest finite bound for a rank in the +Inf bucket', () => {
    expect(histogramQuantile(0.99, h)).toBe(0.1);
  });

  it('is undefined for an empty histogram or one with only +Inf', () => {
    expect(histogramQuantile(0.5, { ...h, counts: [0, 0, 0, 0] })).toBeUndefined();
    expect(histogramQuantile(0.5, { le: [Infinity], counts: [3], sum: 1, count: 3 })).toBeUndefined();
  });
});

const point = (over: Partial<ScrapePoint>): ScrapePoint => ({
  gauges: {},
  counters: {},
  histograms: {},
  ...over,
});

describe('histogramIncrease', () => {
  it('subtracts bucket by bucket, with a reset counted from 0', () => {
    const le = [0.01, Infinity];
    const increase = histogramIncrease([
      { le, counts: [5, 10], sum: 1, count: 10 },
      { le, counts: [8, 14], sum: 1.5, count: 14 },
      { le, counts: [1, 2], sum: 0.25, count: 2 },
    ]);
    expect(increase).toEqual({ le, counts: [4, 6], sum: 0.75, count: 6 });
  });
});

describe('deriveServerDiagnostics', () => {
  const le = [0.005, 0.01, Infinity];
  const points: TimedPoint[] = [
    {
      offsetMs: -3,
      point: point({
        gauges: { running: 0, kvCacheUsage: 0.1 },
        counters: { preemptions: 4, prefixCacheQueries: 100, prefixCacheHits: 10 },
        histograms: { itl: { le, counts: [0, 0, 0], sum: 0, count: 0 } },
      }),
    },
    {
      offsetMs: 500,
      point: point({
        gauges: { running: 6, kvCacheUsage: 0.5 },
        counters: { preemptions: 6, prefixCacheQueries: 300, prefixCacheHits: 60 },
      }),
    },
    {
      offsetMs: 1500,
      point: point({
        gauges: { running: 8, kvCacheUsage: 0.9 },
        counters: { preemptions: 1, prefixCacheQueries: 500, prefixCacheHits: 110 },
      }),
    },
    {
      offsetMs: 2100,
      point: point({
        gauges: { running: 0, kvCacheUsage: 0.2 },
        counters: { preemptions: 2, prefixCacheQueries: 600, prefixCacheHits: 160 },
        histograms: { itl: { le, counts: [50, 90, 100], sum: 0.8, count: 100 } },
      }),
    },
  ];

  it('averages gauges inside the window, counts counter increases with resets, reads latency from histogram deltas', () => {
    const d = deriveServerDiagnostics({
      series: seriesOf(points),
      scrapes: 4,
      failedScrapes: 0,
      errors: [],
      window: { startMs: 0, endMs: 2000 },
    });
    expect(d).toEqual({
      scrapes: 4,
      failedScrapes: 0,
      runningMean: 7,
      runningMax: 8,
      kvCacheUsageMean: 0.7,
      kvCacheUsageMax: 0.9,
      // 4 -> 6 (+2), reset to 1 (+1), -> 2 (+1)
      preemptions: 4,
      prefixCacheHitRate: 150 / 500,
      serverItlMeanMs: 8,
      serverItlP50Ms: 5,
      serverItlP99Ms: 10,
    });
  });

  it('leaves out what cannot be derived, and says why when no scrape succeeded', () => {
    const d = deriveServerDiagnostics({
      series: seriesOf([]),
      scrapes: 0,
      failedScrapes: 3,
      errors: ['HTTP 500 (3x)'],
    });
    expect(d).toEqual({ scrapes: 0, failedScrapes: 3, error: 'metrics unavailable: HTTP 500 (3x)' });
  });

  it('names failed scrapes beside figures from the others', () => {
    const d = deriveServerDiagnostics({
      series: seriesOf(points),
      scrapes: 4,
      failedScrapes: 1,
      errors: ['timeout'],
    });
    expect(d.error).toBe('1 of 5 scrapes failed: timeout');
    expect(d.preemptions).toBe(4);
  });
});
