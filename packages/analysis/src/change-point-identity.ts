import {
  seriesItemsOf,
  type ChangePoint,
  type ChangePointPlan,
  type SeriesItems,
  type SeriesRun,
  type StoredChangePoint,
} from '@teapot/db';
import type { DetectedChangePoint } from './change-points';

/**
 * A recomputed change point this close (in runs, between their spans) to a stored one of the same series
 * and mode is that change refined, whatever its kind now: a detector keeps two steps of one series at
 * least `minSegment` (5) runs apart, and an early step that later reads as a drift covering it is the
 * same change.
 */
export const SAME_CHANGE_RUNS = 5;

/** An announced change point is announced again (`changepoint.updated`) when its magnitude moved this
 *  much relative to the announced one, and by at least MATERIAL_CHANGE_ABSOLUTE. */
const MATERIAL_CHANGE_RELATIVE = 0.25;
const MATERIAL_CHANGE_ABSOLUTE = 0.01;

const seriesOf = (c: { metric: string; statistic: string; mode: string }) =>
  `${c.metric}|${c.statistic}|${c.mode}`;

/**
 * Pairs what a recomputation found with what is stored (one to one, nearest first, a live change point
 * before a retracted one): a pair is an update of the stored row, a found change without a pair is
 * inserted, a live stored one without a pair is retracted unless it `holds` still (hysteresis: kept as
 * it is). A stored change point whose runs are no longer read (older than the recomputed range) is not
 * in `stored` and so is kept as it is.
 */
export function planChangePoints(
  stored: readonly StoredChangePoint[],
  found: readonly DetectedChangePoint[],
  runs: readonly SeriesRun[],
  holds: (changePoint: StoredChangePoint) => boolean = () => false,
): ChangePointPlan {
  const gapOf = gapInRuns(runs);
  const pairs: Array<{ stored: number; found: number; gap: number; retracted: boolean }> = [];
  found.forEach((change, f) => {
    stored.forEach((row, s) => {
      const gap = gapOf(change, row);
      if (gap <= SAME_CHANGE_RUNS)
        pairs.push({ stored: s, found: f, gap, retracted: row.retractedAt !== null });
    });
  });
  pairs.sort((x, y) => x.gap - y.gap || Number(x.retracted) - Number(y.retracted));
  const storedUsed = new Set<number>();
  const foundUsed = new Set<number>();
  const updates: ChangePointPlan['updates'] = [];
  for (const pair of pairs) {
    if (storedUsed.has(pair.stored) || foundUsed.has(pair.found)) continue;
    storedUsed.add(pair.stored);
    foundUsed.add(pair.found);
    updates.push({ id: stored[pair.stored].id, changePoint: found[pair.found] });
  }
  return {
    updates,
    inserts: found.filter((_, f) => !foundUsed.has(f)),
    retractions: stored
      .filter((row, s) => !storedUsed.has(s) && row.retractedAt === null && !holds(row))
      .map((r) => r.id),
  };
}

/**
 * The change points stored for the first time that are news: not those adjacent to another live change
 * point of their series (a drift that goes on from a step is that step's change), and of a step and a
 * drift found together at one place, the step.
 */
export function newChanges(
  inserted: readonly StoredChangePoint[],
  updated: readonly StoredChangePoint[],
  runs: readonly SeriesRun[],
): StoredChangePoint[] {
  const gapOf = gapInRuns(runs);
  const isNew = new Set(inserted.map((c) => c.id));
  const live = [...updated, ...inserted];
  return inserted.filter(
    (change) =>
      !live.some(
        (other) =>
          other.id !== change.id &&
          gapOf(change, other) <= SAME_CHANGE_RUNS &&
          (!isNew.has(other.id) || (other.kind === 'step' && change.kind === 'drift')),
      ),
  );
}

/**
 * Of the change points a recomputation found new, those that join a change already announced in another
 * series of the pair (same mode, spans within SAME_CHANGE_RUNS): TTFT p99 crossing its bar a few runs
 * after TTFT p50 was announced is the same change, not a second alert. The rest are news.
 */
export function joinedChanges(
  fresh: readonly StoredChangePoint[],
  live: readonly StoredChangePoint[],
  runs: readonly SeriesRun[],
): { news: StoredChangePoint[]; joined: StoredChangePoint[] } {
  const gapOf = gapInRuns(runs, true);
  const announced = live.filter((c) => c.announcedMagnitude !== null && c.retractedAt === null);
  const joins = (change: StoredChangePoint) =>
    announced.some((other) => other.id !== change.id && gapOf(change, other) <= SAME_CHANGE_RUNS);
  return { news: fresh.filter((c) => !joins(c)), joined: fresh.filter(joins) };
}

/**
 * The detected change points of one recomputation grouped by change: the same change seen in several
 * metrics or statistics of the pair (TTFT p50 and p99, E2E) is one group when their spans are within
 * SAME_CHANGE_RUNS of a member's, in the same mode. Largest |magnitude| first in each group.
 */
export function sameChanges(
  detected: readonly StoredChangePoint[],
  runs: readonly SeriesRun[],
): StoredChangePoint[][] {
  const gapOf = gapInRuns(runs, true);
  const groups: StoredChangePoint[][] = [];
  for (const change of detected) {
    const near = groups.filter((group) => group.some((other) => gapOf(change, other) <= SAME_CHANGE_RUNS));
    const merged = [change, ...near.flat()];
    for (const group of near) groups.splice(groups.indexOf(group), 1);
    groups.push(merged);
  }
  return groups.map((group) => group.sort((a, b) => Math.abs(b.magnitude) - Math.abs(a.magnitude)));
}

type Located = Pick<ChangePoint, 'metric' | 'statistic' | 'mode'> & SeriesItems;

/** The runs between two change points' spans (0 when they overlap); Infinity across modes, across series
 *  unless `acrossSeries`, or off the runs read. */
function gapInRuns(runs: readonly SeriesRun[], acrossSeries = false): (a: Located, b: Located) => number {
  const indexOfRun = new Map(runs.map((run, i) => [run.id, i]));
  const spanOf = (c: Located) => {
    const items = seriesItemsOf(c);
    const start = indexOfRun.get(items.start);
    if (start === undefined) return null;
    return [start, items.end === null ? start : (indexOfRun.get(items.end) ?? start)] as const;
  };
  return (a, b) => {
    if (acrossSeries ? a.mode !== b.mode : seriesOf(a) !== seriesOf(b)) return Infinity;
    const [spanA, spanB] = [spanOf(a), spanOf(b)];
    if (!spanA || !spanB) return Infinity;
    return Math.max(0, Math.max(spanA[0], spanB[0]) - Math.min(spanA[1], spanB[1]));
  };
}

/**
 * Whether an announced change point changed enough since its announcement to be announced again: found
 * again after a retraction, turned from a step into a drift (or back), or its magnitude moved by a
 * quarter of the announced one (and at least a percentage point). A drift growing run by run is
 * announced again each time it has grown by a quarter, not at every run.
 */
export function changedMaterially(previous: StoredChangePoint, current: StoredChangePoint): boolean {
  if (previous.announcedMagnitude === null) return false;
  if (previous.retractedAt !== null || previous.kind !== current.kind) return true;
  const moved = Math.abs(current.magnitude - previous.announcedMagnitude);
  return (
    moved >= MATERIAL_CHANGE_ABSOLUTE &&
    moved >= MATERIAL_CHANGE_RELATIVE * Math.abs(previous.announcedMagnitude)
  );
}
