import { STATISTIC_QUANTILES, type Statistic } from '@teapot/contracts';
import type { LatencyHistogram } from '@teapot/stats';

/** The value of a statistic over a merged histogram (us), in ms or as a ratio. */
export function histogramStatistic(histogram: LatencyHistogram, statistic: Statistic): number | null {
  if (histogram.count === 0) return null;
  if (statistic === 'mean') return (histogram.mean as number) / 1000;
  if (statistic === 'p99/p50') {
    const p50 = histogram.percentile(0.5) as number;
    return p50 > 0 ? (histogram.percentile(0.99) as number) / p50 : null;
  }
  return (histogram.percentile(STATISTIC_QUANTILES[statistic] as number) as number) / 1000;
}
