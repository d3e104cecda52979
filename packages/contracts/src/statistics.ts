import type { PercentileSummary } from '@teapot/run-definitions';
import type { Direction } from './metrics';

/**
 * What a statistic is read from, in the source's own units: a merged histogram (us), a pooled
 * resample (us), a run's exact summary (ms). `quantile(q)` is null where the source holds no such
 * quantile (an empty histogram; a summary keeps only p50, p90, p95, p99 and p99.9).
 */
export interface QuantileSource {
  quantile(q: number): number | null;
  mean(): number | null;
}

/** Which metrics offer a statistic: every distribution metric, every metric, or the ones named. */
export type OfferedBy = 'distributions' | 'every metric' | readonly string[];

/**
 * One statistic a trend, a comparison, a change-point series or a report may ask of a metric.
 *
 * - `of(source)`: its value from any QuantileSource, so one entry serves a histogram, a pooled
 *   sample and a run summary alike; null when undefined there (no sample, a zero median under a ratio).
 * - `unit`: `metric` (the value is in the source's unit, so it takes the metric's unit and scale: us
 *   divided by 1000 is ms) or `ratio` (scale-free, shown as "2.31×"): `statisticUnit`, `statisticScale`.
 * - `direction`: `metric` (bigger is worse exactly when it is for the metric) or fixed.
 * - `quantile`: the one quantile it is, null otherwise; `tailQuantile`: the highest quantile it reads
 *   (0.5 for the mean), which is what sets the samples a side needs before it is judged.
 */
export interface StatisticDefinition {
  /** e.g. "P99", "P99 / P50", "mean". */
  label: string;
  unit: 'metric' | 'ratio';
  direction: 'metric' | Direction;
  quantile: number | null;
  tailQuantile: number;
  offeredBy: OfferedBy;
  of(source: QuantileSource): number | null;
}

function quantileStatistic(label: string, q: number): StatisticDefinition {
  return {
    label,
    unit: 'metric',
    direction: 'metric',
    quantile: q,
    tailQuantile: q,
    offeredBy: 'distributions',
    of: (source) => source.quantile(q),
  };
}

/** A tail over a centre: how much longer the slow samples are than the typical one. */
function quantileRatio(
  label: string,
  upper: number,
  lower: number,
  offeredBy: OfferedBy,
): StatisticDefinition {
  return {
    label,
    unit: 'ratio',
    direction: 'metric',
    quantile: null,
    tailQuantile: upper,
    offeredBy,
    of: (source) => {
      const below = source.quantile(lower);
      const above = source.quantile(upper);
      return below !== null && above !== null && below > 0 ? above / below : null;
    },
  };
}

/**
 * The statistics catalogue, in the order the API lists them (its enum keeps this order). Adding a
 * statistic is one entry here: the API's enums, the metrics offering it (`offeredBy`), the
 * dashboard's pickers and formatting, and run summaries' values derive from it.
 */
export const STATISTIC_DEFINITIONS = {
  p50: quantileStatistic('P50', 0.5),
  p90: quantileStatistic('P90', 0.9),
  p95: quantileStatistic('P95', 0.95),
  p99: quantileStatistic('P99', 0.99),
  'p99.9': quantileStatistic('P99.9', 0.999),
  mean: {
    label: 'mean',
    unit: 'metric',
    direction: 'metric',
    quantile: null,
    tailQuantile: 0.5,
    offeredBy: 'every metric',
    of: (source) => source.mean(),
  },
  // The ITL tail ratio: prefill stalls show there first.
  'p99/p50': quantileRatio('P99 / P50', 0.99, 0.5, ['itl']),
} as const satisfies Record<string, StatisticDefinition>;

export type Statistic = keyof typeof STATISTIC_DEFINITIONS;
export const STATISTICS = Object.keys(STATISTIC_DEFINITIONS) as readonly Statistic[];

export function isStatistic(value: unknown): value is Statistic {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(STATISTIC_DEFINITIONS, value);
}

export function statisticOf(name: Statistic): StatisticDefinition {
  return STATISTIC_DEFINITIONS[name];
}

/** The quantile of each statistic that is one quantile (q in [0, 1]). */
export const STATISTIC_QUANTILES: Partial<Record<Statistic, number>> = Object.fromEntries(
  STATISTICS.flatMap((name) => {
    const q = statisticOf(name).quantile;
    return q === null ? [] : [[name, q]];
  }),
);

/** The unit a statistic of a metric is reported in: the metric's, or 'ratio'. */
export function statisticUnit(statistic: Statistic, metricUnit: string): string {
  return statisticOf(statistic).unit === 'ratio' ? 'ratio' : metricUnit;
}

/** The factor from the source's units to the reported ones: the metric's (e.g. 1/1000 for us to ms), 1 for a ratio. */
export function statisticScale(statistic: Statistic, metricScale: number): number {
  return statisticOf(statistic).unit === 'ratio' ? 1 : metricScale;
}

/** The statistics a metric offers, in catalogue order. */
export function statisticsOffered(metric: {
  name: string;
  kind: 'distribution' | 'rate' | 'diagnostic';
}): Statistic[] {
  return STATISTICS.filter((name) => {
    const offeredBy = statisticOf(name).offeredBy;
    if (offeredBy === 'every metric') return true;
    if (offeredBy === 'distributions') return metric.kind === 'distribution';
    return offeredBy.includes(metric.name);
  });
}

const SUMMARY_QUANTILES: ReadonlyArray<[number, keyof PercentileSummary]> = [
  [0.5, 'p50'],
  [0.9, 'p90'],
  [0.95, 'p95'],
  [0.99, 'p99'],
  [0.999, 'p999'],
];

/** A run's exact percentile summary as a QuantileSource (ms). */
export function summarySource(summary: PercentileSummary): QuantileSource {
  return {
    quantile: (q) => {
      const field = SUMMARY_QUANTILES.find(([at]) => at === q)?.[1];
      return field === undefined ? null : summary[field];
    },
    mean: () => summary.mean,
  };
}
