import { METRIC_NAMES, type Direction } from './metrics';
import type { Statistic } from './statistics';

/**
 * Figures of a whole sweep (a capacity search), not of one run: a trend or comparison of them takes
 * each sweep as one sample. Kept apart from the run metrics' catalogue because none has a histogram,
 * a rollup or a run column; `/trends` and `/comparisons` accept both catalogues.
 */
export const SWEEP_METRICS = {
  capacity: {
    label: 'capacity at SLO',
    /** Requests/s or streams, as the sweep's dimension: a trend keeps the two apart. */
    unit: 'load',
    direction: 'higher-is-better',
    description: 'The highest load at which the SLO held, as the capacity search found it.',
  },
  cost_per_mtok: {
    label: 'cost per million output tokens at capacity',
    unit: 'USD',
    direction: 'lower-is-better',
    description:
      "US dollars per million output tokens at capacity, from the serving configuration's $/GPU-hour.",
  },
} as const satisfies Record<
  string,
  { label: string; unit: string; direction: Direction; description: string }
>;

export type SweepMetricName = keyof typeof SWEEP_METRICS;
export const SWEEP_METRIC_NAMES = Object.keys(SWEEP_METRICS) as readonly SweepMetricName[];

/** Every metric a trend or a change-point series can be of: the run metrics, then the sweeps'. */
export const SERIES_METRIC_NAMES: ReadonlyArray<string> = [...METRIC_NAMES, ...SWEEP_METRIC_NAMES];

/** Over sweeps, the median and the mean: a few repeats per bucket, so no tail percentile. */
export const SWEEP_STATISTICS = ['p50', 'mean'] as const satisfies readonly Statistic[];

export function isSweepMetricName(name: string): name is SweepMetricName {
  return Object.prototype.hasOwnProperty.call(SWEEP_METRICS, name);
}

/** The unit of a sweep metric's values for a sweep dimension. */
export function sweepMetricUnit(metric: SweepMetricName, dimension: 'rate' | 'concurrency'): string {
  if (metric === 'cost_per_mtok') return 'USD/Mtok';
  return dimension === 'rate' ? 'req/s' : 'streams';
}
