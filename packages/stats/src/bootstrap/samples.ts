import { LatencyHistogram, SparseHistogram } from '../histogram';

/** What a custom statistic sees: the pooled samples of one side (all its runs together). */
export interface PooledSample {
  readonly count: number;
  readonly mean: number;
  /** numpy-linear q-quantile, q in [0, 1] (within the histogram's error when the runs are histograms). */
  quantile(q: number): number;
}

export type NamedStatistic = 'p50' | 'p90' | 'p95' | 'p99' | 'p99.9' | 'mean';
/** A statistic of one side's pooled samples: a named one, or any function of the pooled sample. */
export type PooledStatistic = NamedStatistic | ((pooled: PooledSample) => number);
/** What a resample redraws: whole runs, or each run's own samples. */
export type ResampleScheme = 'runs' | 'within-runs';

/** One run's samples: a histogram (microseconds), dense or sparse, or the raw values (any unit). */
export type RunSamples = LatencyHistogram | SparseHistogram | ArrayLike<number>;
export type Histogram = LatencyHistogram | SparseHistogram;

export function isHistogram(samples: RunSamples): samples is Histogram {
  return samples instanceof LatencyHistogram || samples instanceof SparseHistogram;
}

/**
 * How a resample of whole runs becomes the pooled counts its quantiles are read from. `counts` adds
 * every drawn run's buckets into one array (cost: the drawn runs' non-empty buckets); `prefix` keeps
 * each run's cumulative counts per bucket and finds a quantile's bucket by a search starting at the
 * previous resample's, reading one weighted sum over the drawn runs per bucket probed (cost: a few
 * probes x runs per quantile). Counts are whole numbers, so both sums are exact and the intervals are
 * identical; `auto` takes prefix when it is cheaper and its table is small. Within-runs is always counts.
 */
export const POOLINGS = ['auto', 'counts', 'prefix'] as const;
export type Pooling = (typeof POOLINGS)[number];
