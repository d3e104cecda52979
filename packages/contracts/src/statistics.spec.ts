import { METRIC_NAMES, METRICS, type MetricDefinition } from './metrics';
import {
  STATISTIC_DEFINITIONS,
  STATISTIC_QUANTILES,
  STATISTICS,
  isStatistic,
  statisticOf,
  statisticScale,
  statisticUnit,
  summarySource,
  type QuantileSource,
} from './statistics';

/** The numpy-linear quantiles of 1..101 are 1 + 100q, and the mean is 51. */
const oneTo101: QuantileSource = { quantile: (q) => 1 + 100 * q, mean: () => 51 };
const empty: QuantileSource = { quantile: () => null, mean: () => null };

describe('statistics catalogue', () => {
  it('lists the statistics in the order the API enums keep', () => {
    expect(STATISTICS).toEqual(['p50', 'p90', 'p95', 'p99', 'p99.9', 'mean', 'p99/p50']);
    expect(STATISTIC_QUANTILES).toEqual({ p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, 'p99.9': 0.999 });
    expect(isStatistic('p99.9')).toBe(true);
    expect(isStatistic('p75')).toBe(false);
    expect(isStatistic('toString')).toBe(false);
  });

  it('offers each metric exactly the entries whose offeredBy names it, whatever entries there are', () => {
    for (const metric of METRIC_NAMES) {
      const definition: MetricDefinition = METRICS[metric];
      const expected = STATISTICS.filter((name) => {
        const offeredBy = statisticOf(name).offeredBy;
        if (offeredBy === 'every metric') return true;
        if (offeredBy === 'distributions') return definition.kind === 'distribution';
        return offeredBy.includes(metric);
      });
      expect({ metric, statistics: definition.statistics }).toEqual({ metric, statistics: expected });
    }
    const named = Object.values(STATISTIC_DEFINITIONS).flatMap((d) =>
      Array.isArray(d.offeredBy) ? d.offeredBy : [],
    );
    expect(METRIC_NAMES).toEqual(expect.arrayContaining(named));
  });

  it('offers what the trends and comparisons accepted before the catalogue', () => {
    const latency = ['p50', 'p90', 'p95', 'p99', 'p99.9', 'mean'];
    expect(METRICS.itl.statistics).toEqual([...latency, 'p99/p50']);
    for (const metric of ['ttft', 'tpot', 'e2e', 'inter_chunk'] as const)
      expect(METRICS[metric].statistics).toEqual(latency);
    for (const metric of ['output_tokens_per_s', 'requests_per_s', 'goodput', 'error_rate'] as const)
      expect(METRICS[metric].statistics).toEqual(['mean']);
  });

  it('computes each statistic from a quantile source', () => {
    expect(statisticOf('p50').of(oneTo101)).toBe(51);
    expect(statisticOf('p99').of(oneTo101)).toBe(100);
    expect(statisticOf('p99.9').of(oneTo101)).toBeCloseTo(100.9, 12);
    expect(statisticOf('mean').of(oneTo101)).toBe(51);
    expect(statisticOf('p99/p50').of(oneTo101)).toBe(100 / 51);
    for (const name of STATISTICS) expect(statisticOf(name).of(empty)).toBeNull();
  });

  it('gives no ratio over a zero median', () => {
    const zeroMedian: QuantileSource = { quantile: (q) => (q < 0.9 ? 0 : 5), mean: () => 1 };
    expect(statisticOf('p99/p50').of(zeroMedian)).toBeNull();
    expect(statisticOf('p99').of(zeroMedian)).toBe(5);
  });

  it('reads a run summary by its fields, and nothing it does not keep', () => {
    const summary = summarySource({
      count: 10,
      mean: 3,
      std: 1,
      min: 1,
      max: 9,
      p50: 2,
      p90: 5,
      p95: 6,
      p99: 8,
      p999: 8.9,
    });
    expect(STATISTICS.map((name) => statisticOf(name).of(summary))).toEqual([2, 5, 6, 8, 8.9, 3, 4]);
    expect(summary.quantile(0.75)).toBeNull();
  });

  it('reports ratios unitless and unscaled, the rest in the metric unit and scale', () => {
    expect(statisticUnit('p99', 'ms')).toBe('ms');
    expect(statisticUnit('p99/p50', 'ms')).toBe('ratio');
    expect(statisticScale('mean', 1 / 1000)).toBe(1 / 1000);
    expect(statisticScale('p99/p50', 1 / 1000)).toBe(1);
    for (const name of STATISTICS) {
      const { label, direction, tailQuantile, quantile } = statisticOf(name);
      expect(label.length).toBeGreaterThan(0);
      expect(direction).toBe('metric');
      expect(tailQuantile).toBeGreaterThanOrEqual(quantile ?? 0.5);
    }
  });
});
