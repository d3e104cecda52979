import {
  DIAGNOSTIC_METRICS,
  isStatistic,
  METRICS,
  statisticOf,
  SWEEP_METRICS,
  SWEEP_STATISTICS,
} from '@teapot/contracts/catalogue';
import type { Schemas } from '../api/client';

type Trend = Pick<Schemas['TrendDto'], 'bucket' | 'series'>;
type TrendMetric = Schemas['TrendDto']['metric'];
type SweepTrendMetric = keyof typeof SWEEP_METRICS;
type RunTrendMetric = Exclude<TrendMetric, SweepTrendMetric>;
type TrendStatistic = Schemas['TrendDto']['statistic'];
export type TrendBucket = Schemas['TrendDto']['bucket'];

/**
 * The metrics a trend can draw (inter-chunk gaps keep no histogram, so they have none) and the
 * statistics the catalogue offers each: the API answers 400 for any other pair, so the pickers never
 * offer one.
 */
const TREND_LABELS: ReadonlyArray<[RunTrendMetric, string]> = [
  ['itl', 'ITL'],
  ['tpot', 'TPOT'],
  ['ttft', 'TTFT'],
  ['e2e', 'E2E'],
  ['output_tokens_per_s', 'output tokens/s'],
  ['requests_per_s', 'requests/s'],
  ['goodput', 'goodput req/s'],
  ['error_rate', 'error rate'],
  // Each run's diagnostics (the mean of the runs that have one), labelled as the catalogue says.
  ...DIAGNOSTIC_METRICS.map((name): [RunTrendMetric, string] => [name, METRICS[name].label]),
];
const SWEEP_TREND_LABELS: ReadonlyArray<[SweepTrendMetric, string]> = [
  ['capacity', 'capacity at SLO'],
  ['cost_per_mtok', 'cost per Mtok at capacity'],
];
export const TREND_METRICS: ReadonlyArray<{
  name: TrendMetric;
  label: string;
  statistics: TrendStatistic[];
  /**
   * A figure of whole sweeps (one sample per capacity search): no change points are computed for it,
   * and no run of it is client-saturated on its own.
   */
  ofSweeps: boolean;
}> = [
  ...TREND_LABELS.map(([name, label]) => ({
    name,
    label,
    statistics: [...METRICS[name].statistics],
    ofSweeps: false,
  })),
  ...SWEEP_TREND_LABELS.map(([name, label]) => ({
    name,
    label,
    statistics: [...SWEEP_STATISTICS],
    ofSweeps: true,
  })),
];

/** The catalogue's entry of a statistic the API named. */
function definitionOf(statistic: string) {
  return isStatistic(statistic) ? statisticOf(statistic) : undefined;
}

/** The value axis' title, e.g. "p99 (ms)"; a ratio has no unit: "P99 / P50". */
export function trendAxisLabel(statistic: string, unit: string): string {
  const definition = definitionOf(statistic);
  return definition?.unit === 'ratio' ? definition.label : `${statistic} (${unit})`;
}

const BUCKET_S: Record<Exclude<TrendBucket, 'run'>, number> = { hour: 3600, day: 86_400, week: 7 * 86_400 };

export interface TrendPlotData {
  /** uPlot's aligned data: x (bucket or run start, unix seconds), then one column per series. */
  data: [number[], ...Array<Array<number | null>>];
  labels: string[];
  /**
   * bucket=run: a series' runs sit between other series' runs, so its line joins its own points
   * across their nulls. Time buckets: a null is a bucket without runs, so the line breaks there.
   */
  spanGaps: boolean;
}

/** "weightQuant fp8 · profile chat-c4": the series' key without the fields every series shares. */
export function seriesLabel(
  key: Record<string, unknown>,
  omit: readonly string[] = [],
  names: Record<string, string> = {},
): string {
  const parts = Object.entries(key)
    .filter(([field]) => !omit.includes(field))
    .map(([field, value]) => {
      const text = value === null || value === undefined ? 'unset' : String(value);
      return `${field} ${names[text] ?? text}`;
    });
  return parts.length > 0 ? parts.join(' · ') : 'all runs';
}

/**
 * A trend as uPlot series: the union of every series' x, each series null where it has no point,
 * and for hour/day/week buckets a null bucket inserted into every gap so no line crosses a stretch
 * without runs. `omit` leaves key fields out of the labels (e.g. `endpoint` on an endpoint's page);
 * `names` shows ids (profiles) by name.
 */
export function trendPlotData(
  trend: Trend,
  omit: readonly string[] = [],
  names: Record<string, string> = {},
): TrendPlotData {
  const xs = new Set<number>();
  const columns = trend.series.map((series) => {
    const byX = new Map<number, number | null>();
    for (const point of series.points) {
      const x = Date.parse(point.start) / 1000;
      xs.add(x);
      byX.set(x, point.value);
    }
    return byX;
  });
  const sorted = [...xs].sort((a, b) => a - b);
  const step = trend.bucket === 'run' ? null : BUCKET_S[trend.bucket];
  const withGaps: number[] = [];
  for (const x of sorted) {
    const previous = withGaps[withGaps.length - 1];
    // One null bucket right after the last point is enough to break the line.
    if (step !== null && previous !== undefined && x - previous > step) withGaps.push(previous + step);
    withGaps.push(x);
  }
  return {
    data: [withGaps, ...columns.map((byX) => withGaps.map((x) => byX.get(x) ?? null))],
    labels: trend.series.map((series) => seriesLabel(series.key, omit, names)),
    spanGaps: trend.bucket === 'run',
  };
}

/** Sweeps of the trend whose SLO failed even at their lowest load: counted, never drawn as 0. */
export function belowLowestSweeps(trend: Trend): number {
  return trend.series.reduce(
    (sum, series) => sum + series.points.reduce((n, point) => n + (point.belowLowest ?? 0), 0),
    0,
  );
}

/** How one point of the trend reads, e.g. "12.4 ms", "0.021", "2.31×". */
export function formatTrendValue(value: number | null | undefined, unit: string, statistic: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const number = value >= 100 ? Math.round(value) : Number(value.toPrecision(3));
  if (definitionOf(statistic)?.unit === 'ratio') return `${number}×`;
  if (unit === 'fraction') return `${Number((value * 100).toPrecision(3))} %`;
  return `${number} ${unit}`;
}

export interface PlotMarker {
  /** Unix seconds. */
  x: number;
  label: string;
}

/** Deployments as vertical markers: when each took effect, its label and verdict. */
export function deploymentMarkers(
  deployments: ReadonlyArray<Pick<Schemas['DeploymentDto'], 'effectiveAt' | 'label' | 'verdict'>>,
): PlotMarker[] {
  return deployments
    .map((deployment) => ({
      x: Date.parse(deployment.effectiveAt) / 1000,
      label: `${deployment.label} (${deployment.verdict})`,
    }))
    .sort((a, b) => a.x - b.x);
}

/** The x range that shows every point and every marker, with a little room at both ends. */
export function xRange(xs: readonly number[], markers: readonly PlotMarker[]): [number, number] | null {
  const all = [...xs, ...markers.map((marker) => marker.x)];
  if (all.length === 0) return null;
  const min = Math.min(...all);
  const max = Math.max(...all);
  const pad = max > min ? (max - min) * 0.03 : 60;
  return [min - pad, max + pad];
}

type ChangePoint = Pick<
  Schemas['ChangePointDto'],
  | 'at'
  | 'endAt'
  | 'kind'
  | 'mode'
  | 'unit'
  | 'statistic'
  | 'meanBefore'
  | 'meanAfter'
  | 'magnitude'
  | 'pValue'
  | 'profileId'
> & { attribution: Pick<Schemas['ChangePointAttributionDto'], 'explained' | 'summary'> };

export interface ChangeMarker extends PlotMarker {
  /** A drift's end (unix seconds); null for a step. */
  endX: number | null;
  kind: ChangePoint['kind'];
  /** The whole story, for the legend and the tooltip: levels, change, kind, profile, p-value. */
  detail: string;
  /** What it coincides with ("coincides with config v7 ..."), or "no recorded change: unexplained". */
  attribution: string;
  explained: boolean;
}

function signedPercent(fraction: number): string {
  const text = `${Number((fraction * 100).toPrecision(2))}%`;
  return fraction > 0 ? `+${text}` : text;
}

/**
 * Change points as plot markers: a step at its first run after the change, a drift over its runs;
 * labelled with the relative change, and a detail line with the levels before and after (in the
 * trend's unit), the kind, the profile (by name when known) and the p-value, and what the change
 * coincides with (its attribution; the label says when nothing does). Oldest first.
 */
export function changePointMarkers(
  changePoints: readonly ChangePoint[],
  profileNames: Record<string, string> = {},
): ChangeMarker[] {
  return changePoints
    .map((change) => {
      const levels = `${formatTrendValue(change.meanBefore, change.unit, change.statistic)} → ${formatTrendValue(change.meanAfter, change.unit, change.statistic)}`;
      const profile = profileNames[change.profileId] ?? change.profileId.slice(0, 8);
      return {
        x: Date.parse(change.at) / 1000,
        endX: change.kind === 'drift' && change.endAt ? Date.parse(change.endAt) / 1000 : null,
        kind: change.kind,
        // An unexplained change is the one a team most needs to look at: the plot says so too.
        label: `${signedPercent(change.magnitude)} ${change.kind}${change.attribution.explained ? '' : ', unexplained'}`,
        attribution: change.attribution.summary,
        explained: change.attribution.explained,
        detail: `${levels} (${signedPercent(change.magnitude)}), ${change.kind} in profile ${profile}, ${change.mode} p = ${change.pValue.toPrecision(2)}`,
      };
    })
    .sort((a, b) => a.x - b.x);
}
