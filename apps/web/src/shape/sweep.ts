import type { Schemas } from '../api/client';

type Sweep = Schemas['SweepDto'];
type SweepDetail = Pick<Schemas['SweepDetailDto'], 'capacity' | 'points'>;
type SweepPoint = Schemas['SweepPointDto'];
type Target = Schemas['TargetResultDto'];

/** Why a sweep ended, in the words an engineer reads on the page. */
const STOP_REASONS: Record<NonNullable<Sweep['stopReason']>, string> = {
  completed: 'every listed point was measured',
  converged: 'converged: the bracket is within the tolerance',
  over_saturated: 'stopped early: a point could not keep up with its offered load',
  below_lowest: 'the SLO was missed even at the lowest load: capacity is below the lowest point',
  above_highest: 'the SLO held even at the highest load: capacity is above the highest point',
  point_limit: 'the point limit was reached before converging: capacity is the best load known to pass',
  endpoint_failed: 'the endpoint failed: the points measured so far are kept',
  aborted: 'aborted: the points measured so far are kept',
};

export function stopReasonText(sweep: Pick<Sweep, 'stopReason' | 'status'>): string {
  if (sweep.stopReason) return STOP_REASONS[sweep.stopReason];
  return sweep.status === 'queued' || sweep.status === 'running' ? 'still measuring' : 'no reason recorded';
}

/** A load with the sweep's unit, e.g. "12.5 req/s" or "8 streams"; "–" for none. */
export function formatLoad(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return `${Number(value.toPrecision(3))} ${unit}`;
}

/** "$0.412 per million output tokens", or why there is no cost (never a guess). */
export function costText(sweep: Pick<Sweep, 'costPerMillionOutputTokensUsdAtCapacity' | 'capacity'>): string {
  const cost = sweep.costPerMillionOutputTokensUsdAtCapacity;
  if (cost !== null) return `$${Number(cost.toPrecision(3))} per million output tokens`;
  return sweep.capacity === null ? 'no capacity, so no cost' : 'no price set';
}

/** "p99 TTFT": how a target's statistic reads in a table header or a plot title. */
export function targetName(target: Pick<Target, 'metric' | 'percentile'>): string {
  return `p${target.percentile} ${target.metric.toUpperCase()}`;
}

/** The points that were measured (figures stored), in ascending offered load for a plot's x. */
function measuredByLoad(points: readonly SweepPoint[]) {
  return points
    .filter((point) => point.figures !== null)
    .map((point) => ({ point, figures: point.figures as NonNullable<SweepPoint['figures']> }))
    .sort((a, b) => a.figures.load - b.figures.load);
}

export interface SloPlotData {
  /** As the SLO names it, e.g. "p50 TPOT". */
  title: string;
  limitMs: number;
  /** x: offered load; then the measured value and the limit at each x. */
  data: [number[], Array<number | null>, number[]];
}

/** For each SLO target: its measured percentile against offered load, with the limit as a flat line. */
export function sloPlots(sweep: Pick<Schemas['SweepDetailDto'], 'slo' | 'points'>): SloPlotData[] {
  const measured = measuredByLoad(sweep.points);
  return (sweep.slo?.targets ?? []).map((target) => {
    const xs = measured.map((m) => m.figures.load);
    const values = measured.map(
      (m) =>
        m.figures.targets.find((t) => t.metric === target.metric && t.percentile === target.percentile)
          ?.valueMs ?? null,
    );
    return {
      title: targetName(target),
      limitMs: target.limitMs,
      data: [xs, values, xs.map(() => target.limitMs)],
    };
  });
}

export interface FrontierPoint {
  /** Output tokens/s per user (stream in flight). */
  perUser: number;
  /** Output tokens/s per GPU (total tokens/s when the GPU count is unknown, as the frontier itself). */
  perGpu: number;
  load: number;
  runId: string;
  /** Whether the point met the sweep's SLO; null when the sweep has none. */
  met: boolean | null;
}

export interface Frontier {
  /** The Pareto-optimal points, ascending tokens/s per user (so descending per GPU). */
  frontier: FrontierPoint[];
  /** Every measured point with both axes, the frontier's included. */
  all: FrontierPoint[];
  /** The point measured at the capacity; null when there is none or it has no axes. */
  capacity: FrontierPoint | null;
}

/** A sweep in vLLM's Pareto terms: each point's tokens/s per user and per GPU, the frontier, the capacity point. */
export function frontierOf(sweep: SweepDetail): Frontier {
  const all = sweep.points.flatMap((point): Array<FrontierPoint & { onFrontier: boolean }> => {
    const figures = point.figures;
    if (!figures || figures.tokensPerSPerUser === null) return [];
    return [
      {
        perUser: figures.tokensPerSPerUser,
        perGpu: figures.tokensPerSPerGpu ?? figures.outputTokensPerS,
        load: figures.load,
        runId: point.runId,
        met: figures.met,
        onFrontier: point.onFrontier,
      },
    ];
  });
  const strip = ({ onFrontier: _on, ...point }: FrontierPoint & { onFrontier: boolean }) => point;
  const byUser = [...all].sort((a, b) => a.perUser - b.perUser);
  const atCapacity = sweep.capacity === null ? undefined : all.find((p) => p.load === sweep.capacity);
  return {
    frontier: byUser.filter((p) => p.onFrontier).map(strip),
    all: byUser.map(strip),
    capacity: atCapacity ? strip(atCapacity) : null,
  };
}

/** Where an SLO target sits on the frontier's x (output tokens/s per user), and how it reads there. */
export interface SloGuide {
  perUser: number;
  label: string;
}

/**
 * The sweep's TPOT targets on the per-user axis: a stream decoding at exactly the limit makes 1000 /
 * limit tokens/s. A guide, not a verdict: tokens/s per user is output tokens/s over streams in flight,
 * so queueing and prefill pull a point below 1000 / its mean TPOT, and the limit holds at a percentile
 * rather than on the mean; whether a point met the SLO is its own `met`. ITL targets are left out: their
 * percentiles are over tokens, where single stalls rule, not over a stream's pace.
 */
export function sloGuides(slo: Schemas['SweepDetailDto']['slo']): SloGuide[] {
  return (slo?.targets ?? [])
    .filter((target) => target.metric === 'tpot')
    .map((target) => {
      const perUser = 1000 / target.limitMs;
      return {
        perUser,
        label: `TPOT p${target.percentile} ≤ ${target.limitMs} ms ≈ ${Number(perUser.toPrecision(2))} tok/s/user`,
      };
    });
}

export interface OverlaySeries {
  label: string;
  frontier: FrontierPoint[];
  capacity: FrontierPoint | null;
  guides: SloGuide[];
}

/** A guide on an overlay: `of` is the index of the one series it belongs to, null when every series shares it. */
export interface OverlayGuide extends SloGuide {
  of: number | null;
}

/**
 * The overlaid sweeps' SLO guides: once, unlabelled, when every sweep has the same ones; otherwise each
 * sweep's own, labelled with its configuration, so two SLOs on one plot are never confused.
 */
export function overlayGuides(series: readonly OverlaySeries[]): OverlayGuide[] {
  const key = (s: OverlaySeries) => s.guides.map((g) => g.label).join('|');
  if (series.every((s) => key(s) === key(series[0])))
    return (series[0]?.guides ?? []).map((guide) => ({ ...guide, of: null }));
  return series.flatMap((s, of) =>
    s.guides.map((guide) => ({ ...guide, label: `${s.label}: ${guide.label}`, of })),
  );
}

/**
 * Several frontiers on one x (tokens/s per user): the union of their x, each frontier's line null
 * where it has no point (spanned, so each line joins its own points), then each frontier's points that
 * missed its SLO (drawn hollow over the line), and each capacity point as a series of its own holding
 * one value. Series order: every frontier, every frontier's missed points, every capacity point.
 */
export function overlayData(series: readonly OverlaySeries[]): Array<Array<number | null>> {
  const xs = [
    ...new Set(
      series.flatMap((s) => [
        ...s.frontier.map((p) => p.perUser),
        ...(s.capacity ? [s.capacity.perUser] : []),
      ]),
    ),
  ].sort((a, b) => a - b);
  const column = (points: readonly FrontierPoint[]) => {
    const byX = new Map(points.map((p) => [p.perUser, p.perGpu]));
    return xs.map((x) => byX.get(x) ?? null);
  };
  return [
    xs,
    ...series.map((s) => column(s.frontier)),
    ...series.map((s) => column(s.frontier.filter((p) => p.met === false))),
    ...series.map((s) => column(s.capacity ? [s.capacity] : [])),
  ];
}

type ConfigFacts = Pick<Schemas['ServingConfigDto'], 'id' | 'version' | 'weightQuant'>;

/** "v3 W:fp8": the serving configuration a sweep measured, by version and weight quantisation. */
export function sweepConfigName(sweep: Pick<Sweep, 'configId'>, configs: readonly ConfigFacts[]): string {
  const config = configs.find((c) => c.id === sweep.configId);
  if (!config) return 'unknown configuration';
  return `v${config.version}${config.weightQuant ? ` W:${config.weightQuant}` : ''}`;
}

/** "v3 W:fp8 · 05/12 14:02": the configuration and when, so two sweeps of one configuration differ. */
export function sweepLabel(
  sweep: Pick<Sweep, 'configId' | 'queuedAt'>,
  configs: readonly ConfigFacts[],
): string {
  const when = new Date(sweep.queuedAt).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  return `${sweepConfigName(sweep, configs)} · ${when}`;
}

/** "point 3" from a run's place in its sweep (counted from 0 by the API, from 1 for people). */
export function pointOrdinal(sweepIndex: number): string {
  return `point ${sweepIndex + 1}`;
}

/** "met" / "missed" / "–" for a target's value against its limit. */
export function targetVerdict(target: Pick<Target, 'valueMs' | 'met'>): 'met' | 'missed' | '–' {
  if (target.valueMs === null) return '–';
  return target.met ? 'met' : 'missed';
}
