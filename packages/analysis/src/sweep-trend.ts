import {
  SWEEP_METRICS,
  SWEEP_STATISTICS,
  sweepMetricUnit,
  type Statistic,
  type SweepMetricName,
} from '@teapot/contracts';
import type { SeriesSweep, SweepSeriesStore } from '@teapot/db';
import { AnalysisInputError } from './errors';
import { checkSelection } from './selection';
import { checkTrendShape, MAX_TREND_POINTS, type Trend, type TrendPoint, type TrendQuery } from './trend';
import { bucketStart } from './trend-points';

/** The most sweeps one trend reads. */
export const MAX_TREND_SWEEPS = 20_000;

/**
 * Capacity at SLO, or cost per million output tokens at capacity, over time: each finished capacity
 * search is one sample, and a bucket's value is the median (`p50`) or mean of its sweeps. Grouped as
 * run trends are (endpoint, profile, serving-configuration fields); capacity series are also split by
 * the sweeps' dimension, since req/s and streams are not one scale. A sweep whose SLO failed even at
 * its lowest load has no value: it is counted in its bucket's `belowLowest`, never taken as 0.
 */
export async function sweepTrend(
  sweeps: SweepSeriesStore,
  query: TrendQuery & { metric: SweepMetricName },
): Promise<Trend> {
  const statistic = checkSweepStatistic(query.metric, query.statistic);
  const groupBy = checkTrendShape(query);
  checkSelection(query);
  const { includeSaturated: _unused, runIds, ...filter } = query;
  if (runIds) throw new AnalysisInputError('runId', `${query.metric} is a figure of sweeps, not of runs`);
  const found = await sweeps.capacitySearches(filter, MAX_TREND_SWEEPS + 1);
  if (found.length > MAX_TREND_SWEEPS)
    throw new AnalysisInputError('from', `selects more than ${MAX_TREND_SWEEPS} sweeps: narrow the range`);
  if (query.bucket === 'run' && found.length > MAX_TREND_POINTS)
    throw new AnalysisInputError('bucket', `run over this range exceeds ${MAX_TREND_POINTS} points`);
  const splitByDimension = query.metric === 'capacity';
  const bySeries = new Map<string, { key: Record<string, unknown>; buckets: Map<string, SeriesSweep[]> }>();
  for (const sweep of found) {
    const key: Record<string, unknown> = Object.fromEntries(
      groupBy.map((field) => [
        field,
        field === 'endpoint' ? sweep.endpointId : field === 'profile' ? sweep.profileId : sweep.config[field],
      ]),
    );
    if (splitByDimension) key.dimension = sweep.dimension;
    const seriesId = JSON.stringify(Object.values(key));
    let series = bySeries.get(seriesId);
    if (!series) bySeries.set(seriesId, (series = { key, buckets: new Map() }));
    const bucket = query.bucket === 'run' ? sweep.id : String(bucketStart(sweep.startedAt, query.bucket));
    series.buckets.set(bucket, [...(series.buckets.get(bucket) ?? []), sweep]);
  }
  const dimensions = new Set(found.map((sweep) => sweep.dimension));
  const unit =
    query.metric === 'cost_per_mtok'
      ? sweepMetricUnit('cost_per_mtok', 'rate')
      : [...dimensions].map((d) => sweepMetricUnit('capacity', d)).join(' | ') || 'req/s';
  const base = {
    metric: query.metric,
    statistic,
    unit,
    weighting: 'sweep' as const,
    bucket: query.bucket,
    from: query.from,
    to: query.to,
    groupBy,
    excludedSaturatedRuns: 0,
    read: { rollupRows: 0, runs: found.length },
  };
  if (bySeries.size === 0)
    return { ...base, series: [], reason: 'no finished capacity search matches the selection' };
  const series = [...bySeries.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { key, buckets }]) => ({
      key: key as Trend['series'][number]['key'],
      points: [...buckets.values()]
        .map((bucket) => pointOf(bucket, query, statistic))
        .sort((a, b) => a.start.getTime() - b.start.getTime()),
    }));
  return { ...base, series };
}

function checkSweepStatistic(metric: SweepMetricName, statistic: string): Statistic {
  if (!(SWEEP_STATISTICS as readonly string[]).includes(statistic)) {
    throw new AnalysisInputError(
      'statistic',
      `of ${metric} (${SWEEP_METRICS[metric].label}) must be one of ${SWEEP_STATISTICS.join(', ')}`,
    );
  }
  return statistic as Statistic;
}

/** The value of one sweep for a sweep metric; null when it has none. */
export function sweepValue(sweep: SeriesSweep, metric: SweepMetricName): number | null {
  return metric === 'capacity' ? sweep.capacity : sweep.costPerMtok;
}

/** Median (the mean of the two middle values when they are even in number) or mean; null when empty. */
export function centreOf(values: readonly number[], statistic: Statistic): number | null {
  if (values.length === 0) return null;
  if (statistic === 'mean') return values.reduce((sum, v) => sum + v, 0) / values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function pointOf(
  sweeps: SeriesSweep[],
  query: TrendQuery & { metric: SweepMetricName },
  statistic: Statistic,
): TrendPoint {
  const values = sweeps.map((s) => sweepValue(s, query.metric)).filter((v): v is number => v !== null);
  const versions = new Map(
    sweeps.map((s) => [
      `${s.endpointId}:${s.configVersion}`,
      { endpointId: s.endpointId, version: s.configVersion },
    ]),
  );
  const start =
    query.bucket === 'run' ? sweeps[0].startedAt.getTime() : bucketStart(sweeps[0].startedAt, query.bucket);
  return {
    start: new Date(start),
    value: centreOf(values, statistic),
    runs: sweeps.length,
    requests: sweeps.reduce((sum, s) => sum + s.requests, 0),
    tokens: sweeps.reduce((sum, s) => sum + s.tokens, 0),
    samples: values.length,
    configVersions: [...versions.values()].sort(
      (a, b) => a.endpointId.localeCompare(b.endpointId) || (a.version ?? -1) - (b.version ?? -1),
    ),
    ...(query.bucket === 'run' ? { sweepId: sweeps[0].id } : {}),
    belowLowest: sweeps.filter((s) => s.stopReason === 'below_lowest').length,
  };
}
