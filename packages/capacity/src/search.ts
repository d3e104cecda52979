import type { SweepSpec, SweepStopReason } from '@teapot/run-definitions';
import type { SweepPoint } from './point';

export interface Bracket {
  /** The highest load known to meet the SLO below the lowest that fails it. */
  passed: number | null;
  /** The lowest load known to fail it. */
  failed: number | null;
}

export type SweepStep =
  | { kind: 'measure'; load: number }
  | { kind: 'done'; reason: SweepStopReason; capacity: number | null; bracket: Bracket };

/** How far the search may jump up while it has not yet seen a failing load. */
const BRACKET_GROWTH = 4;
/** ...and at least this far, so that an over-cautious estimate still makes progress. */
const BRACKET_MIN_GROWTH = 1.25;
/** While the bracket is wider than three tolerances, a guess stays GUARD of it from either end. */
const GUARD = 0.15;
/** Closed loop: this many times the streams for under this much more throughput is a plateau. */
const PLATEAU_LOAD = 1.5;
const PLATEAU_GAIN = 1.05;

/**
 * The next load to measure, or why the sweep is done, from the points measured so far (in measuring
 * order) and nothing else: a worker that dies mid-sweep resumes by asking again. The caller ends a
 * sweep whose point failed (`endpoint_failed`) or that was stopped (`aborted`) itself.
 */
export function nextSweepStep(spec: SweepSpec, points: readonly SweepPoint[]): SweepStep {
  return spec.kind === 'points' ? nextListedPoint(spec, points) : nextSearchPoint(spec, points);
}

function nextListedPoint(
  spec: Extract<SweepSpec, { kind: 'points' }>,
  points: readonly SweepPoint[],
): SweepStep {
  const last = points[points.length - 1];
  const done = (reason: SweepStopReason): SweepStep => {
    const bracket = spec.slo ? bracketOf(points) : { passed: null, failed: null };
    return { kind: 'done', reason, capacity: bracket.passed, bracket };
  };
  if (points.length >= spec.points.length) return done('completed');
  if (last && overSaturated(last, points)) return done('over_saturated');
  return { kind: 'measure', load: spec.points[points.length] };
}

/**
 * Lowest load first; then up, to where the headroom of the passing points says the SLO breaks (at
 * most BRACKET_GROWTH times higher) until a load fails; then inside the bracket, aiming just under
 * the estimated crossing so that the next point, just above the best pass, closes the bracket.
 */
function nextSearchPoint(
  spec: Extract<SweepSpec, { kind: 'capacity' }>,
  points: readonly SweepPoint[],
): SweepStep {
  if (points.length === 0) return { kind: 'measure', load: spec.lowest };
  const bracket = bracketOf(points);
  const done = (reason: SweepStopReason, capacity: number | null): SweepStep => ({
    kind: 'done',
    reason,
    capacity,
    bracket,
  });
  if (!passes(points[0], points)) return done('below_lowest', null);
  const passed = bracket.passed as number;
  const tol = spec.tolerance;
  if (bracket.failed === null) {
    if (passed >= spec.highest) return done('above_highest', passed);
    if (points.length >= spec.maxPoints) return done('point_limit', passed);
    const estimate = crossingOf(points, passed, null);
    const up =
      estimate === null
        ? BRACKET_GROWTH
        : clamp((estimate * (1 - tol * 0.4)) / passed, BRACKET_MIN_GROWTH, BRACKET_GROWTH);
    return { kind: 'measure', load: Math.min(spec.highest, passed * up) };
  }
  const failed = bracket.failed;
  if (failed / passed - 1 <= tol) return done('converged', passed);
  if (points.length >= spec.maxPoints) return done('point_limit', passed);
  // A crossing at or beyond the failed load means the targets do not explain the failure (the point
  // failed by over-saturation or errors): the latencies say nothing of where, so bisect.
  const crossing = crossingOf(points, passed, failed);
  const estimate = crossing !== null && crossing < failed ? crossing : Math.sqrt(passed * failed);
  let next = passed * (1 + tol) >= estimate ? passed * (1 + tol * 0.95) : estimate * (1 - tol * 0.4);
  if (failed / passed > Math.pow(1 + tol, 3)) {
    const lo = Math.log(passed);
    const width = Math.log(failed) - lo;
    next = Math.exp(lo + clamp((Math.log(next) - lo) / width, GUARD, 1 - GUARD) * width);
  }
  if (!(next > passed && next < failed)) next = Math.sqrt(passed * failed);
  return { kind: 'measure', load: next };
}

/**
 * Where the first target reaches its limit, from headroom = limit / value taken as linear in load
 * (exact for a queue's 1 / (1 - load / service) and for a TPOT that grows linearly with the batch):
 * through the best pass and the lowest fail when the fail has a value, else extrapolated from the two
 * highest passes. Null when no target gives a crossing above the best pass.
 */
function crossingOf(points: readonly SweepPoint[], passed: number, failed: number | null): number | null {
  const below = points.filter((p) => passes(p, points) && p.load <= passed).sort((a, b) => b.load - a.load);
  const above = failed === null ? undefined : points.find((p) => p.load === failed);
  let crossing: number | null = null;
  for (const [i, target] of (below[0]?.targets ?? []).entries()) {
    const headroom = (p: SweepPoint | undefined): number | null => {
      const value = p && !p.saturation.saturated ? p.targets[i]?.valueMs : null;
      return value == null || value <= 0 ? null : target.limitMs / value;
    };
    const h1 = headroom(below[0]);
    const other = headroom(above) !== null ? above : below[1];
    const h2 = headroom(other);
    if (h1 === null || h2 === null || !other) continue;
    const slope = (h2 - h1) / (other.load - below[0].load);
    if (!(slope < 0)) continue;
    const at = below[0].load + (1 - h1) / slope;
    if (at > passed && (crossing === null || at < crossing)) crossing = at;
  }
  return crossing;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** How close the point is to failing: the largest value / limit over its targets (1 = at the limit). */
export function marginOf(point: SweepPoint): number | null {
  if (point.saturation.saturated || point.targets.length === 0) return null;
  let margin = 0;
  for (const t of point.targets) {
    if (t.valueMs === null) return null;
    margin = Math.max(margin, t.valueMs / t.limitMs);
  }
  return margin > 0 ? margin : null;
}

/** The highest passing load below the lowest failing one: a pass above a fail is noise, not capacity. */
export function bracketOf(points: readonly SweepPoint[]): Bracket {
  let failed: number | null = null;
  for (const p of points) if (!passes(p, points) && (failed === null || p.load < failed)) failed = p.load;
  let passed: number | null = null;
  for (const p of points) {
    if (passes(p, points) && (failed === null || p.load < failed) && (passed === null || p.load > passed)) {
      passed = p.load;
    }
  }
  return { passed, failed };
}

function passes(point: SweepPoint, all: readonly SweepPoint[]): boolean {
  return point.met === true && !overSaturated(point, all);
}

/**
 * Open loop: the point's own evidence. Closed loop: more streams bought no throughput, against any
 * lower point (PLATEAU_LOAD times fewer streams made nearly as many tokens/s): the extra streams only
 * wait in the server's queue.
 */
export function overSaturated(point: SweepPoint, all: readonly SweepPoint[]): boolean {
  if (point.saturation.saturated) return true;
  if (point.dimension !== 'concurrency') return false;
  return all.some(
    (lower) =>
      lower.load * PLATEAU_LOAD <= point.load &&
      lower.outputTokensPerS > 0 &&
      point.outputTokensPerS < lower.outputTokensPerS * PLATEAU_GAIN,
  );
}
