import { statisticOf, statisticScale, type QuantileSource, type Statistic } from '@teapot/contracts';
import { percentile } from '@teapot/run-definitions';
import type { LatencyHistogram, PooledSample } from '@teapot/stats';

/** Stored histograms hold microseconds; analyses report milliseconds. */
const US_TO_MS = 1 / 1000;

/** The value of a statistic over a merged histogram (us), in ms or as a ratio. */
export function histogramStatistic(histogram: LatencyHistogram, statistic: Statistic): number | null {
  if (histogram.count === 0) return null;
  const value = statisticOf(statistic).of({
    quantile: (q) => histogram.percentile(q),
    mean: () => histogram.mean,
  });
  if (value === null) return null;
  // Divided rather than scaled by US_TO_MS: the reported figures stay bit for bit what they were.
  return statisticOf(statistic).unit === 'ratio' ? value : value / 1000;
}

/** The factor from a stored sample's microseconds to the statistic's reported value (1 for a ratio). */
export function reportedScale(statistic: Statistic): number {
  return statisticScale(statistic, US_TO_MS);
}

/** A pooled bootstrap side as the catalogue reads it. */
export function pooledSource(pooled: PooledSample): QuantileSource {
  return { quantile: (q) => pooled.quantile(q), mean: () => pooled.mean };
}

/** One unit's own samples (a run's histogram values, or a request's), sorted ascending, as the catalogue reads them. */
export function sortedSource(sorted: Float64Array): QuantileSource {
  return {
    quantile: (q) => (sorted.length > 0 ? percentile(sorted, q) : null),
    mean: () => (sorted.length > 0 ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : null),
  };
}
