import { studentTTwoSided } from '../distributions';
import { PairDistances } from './e-divisive';

export interface OtavaOptions {
  /** Sliding window of the split step, in points. Default 50; at least 2. */
  window?: number;
  /** Change points with a larger p-value are merged away. Default 0.001. */
  maxPValue?: number;
  /** Change points whose relative change (max of forward and backward) is at most this are merged away
   *  once every p-value passes. Default 0. */
  minMagnitude?: number;
  /**
   * Which neighbours the merge step recomputes after removing a point. `otava` (default) recomputes
   * the point now at the removed one's place and the one after it, as Otava does: the left neighbour,
   * whose right side just grew, keeps its old statistics (a suspected upstream bug, kept so results
   * match Otava's). `both` recomputes the two neighbours whose sides changed.
   */
  mergeRecompute?: 'otava' | 'both';
}

/** The two-sample statistics of a change point between its neighbouring change points. */
export interface SplitStats {
  meanBefore: number;
  meanAfter: number;
  /** Population standard deviations (ddof = 0), as Otava reports them. */
  stdBefore: number;
  stdAfter: number;
  pValue: number;
  t: number;
}

export interface OtavaChangePoint extends SplitStats {
  /** The first index after the change. */
  index: number;
  qhat: number;
  /** max(|after/before - 1|, |before/after - 1|), 0 where a mean is 0 (Otava's change_magnitude). */
  magnitude: number;
}

export const OTAVA_DEFAULTS = { window: 50, maxPValue: 0.001, minMagnitude: 0 } as const;

/**
 * Otava's two-sample t-test: Student's with pooled variance, but from population (ddof = 0)
 * standard deviations, exactly as Otava feeds scipy's ttest_ind_from_stats. A side of one value has
 * standard deviation 0; with no degrees of freedom the p-value is 1. Equal constant sides give NaN.
 */
export function otavaTTest(left: ArrayLike<number>, right: ArrayLike<number>): SplitStats {
  const n1 = left.length;
  const n2 = right.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('otavaTTest: both sides need a value');
  const [meanBefore, stdBefore] = meanStd(left);
  const [meanAfter, stdAfter] = meanStd(right);
  const df = n1 + n2 - 2;
  if (df <= 0) return { meanBefore, meanAfter, stdBefore, stdAfter, pValue: 1, t: 0 };
  const pooled = ((n1 - 1) * stdBefore * stdBefore + (n2 - 1) * stdAfter * stdAfter) / df;
  const t = (meanBefore - meanAfter) / Math.sqrt(pooled * (1 / n1 + 1 / n2));
  return { meanBefore, meanAfter, stdBefore, stdAfter, pValue: studentTTwoSided(t, df), t };
}

function meanStd(values: ArrayLike<number>): [number, number] {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  const mean = sum / values.length;
  if (values.length < 2) return [mean, 0];
  let squares = 0;
  for (let i = 0; i < values.length; i++) squares += (values[i] - mean) ** 2;
  return [mean, Math.sqrt(squares / values.length)];
}

/** Otava's change_magnitude: the larger of the forward and backward relative changes. */
export function relativeMagnitude(before: number, after: number): number {
  const forward = before === 0 ? 0 : after / before - 1;
  const backward = after === 0 ? 0 : before / after - 1;
  return Math.max(Math.abs(forward), Math.abs(backward));
}

function pointOf(series: ArrayLike<number>, index: number, qhat: number, from: number, to: number) {
  const stats = otavaTTest(slice(series, from, index), slice(series, index, to));
  return { index, qhat, ...stats, magnitude: relativeMagnitude(stats.meanBefore, stats.meanAfter) };
}

function slice(series: ArrayLike<number>, from: number, to: number): ArrayLike<number> {
  return Array.prototype.slice.call(series, from, to) as number[];
}

/**
 * The E-Divisive detector with a t-test stop, over one window (Otava's ChangePointDetector with
 * stop_at = 0): repeatedly take the best candidate over the intervals between the change points found
 * so far; keep it while its t-test p-value (between its interval's ends) is at most `maxPValue`.
 * Indexes are relative to the window.
 */
export function detectInWindow(window: ArrayLike<number>, maxPValue: number): OtavaChangePoint[] {
  const distances = new PairDistances(window);
  const found: OtavaChangePoint[] = [];
  for (;;) {
    const bounds = [0, ...found.map((cp) => cp.index), window.length];
    let best: { index: number; qhat: number; from: number; to: number } | null = null;
    for (let i = 0; i + 1 < bounds.length; i++) {
      const candidate = distances.candidate(bounds[i], bounds[i + 1]);
      // Python's max() keeps the first of equal keys: only a strictly larger Q replaces.
      if (candidate && (best === null || candidate.qhat > best.qhat))
        best = { ...candidate, from: bounds[i], to: bounds[i + 1] };
    }
    if (best === null) return found;
    const point = pointOf(window, best.index, best.qhat, best.from, best.to);
    if (!(point.pValue <= maxPValue)) return found;
    found.push(point);
    found.sort((a, b) => a.index - b.index);
  }
}

/**
 * Otava's split step: detect in windows of `window` points sliding by half a window (restarting at the
 * last change point found when that is further on), keep the union, then give each point its
 * statistics between its neighbours: the "weak" change points.
 */
export function splitStep(series: ArrayLike<number>, window: number, maxPValue: number): OtavaChangePoint[] {
  if (!Number.isInteger(window) || window < 2) throw new RangeError('window must be an integer >= 2');
  const step = Math.floor(window / 2);
  const seen = new Map<number, number>();
  for (let start = 0; start < series.length;) {
    const end = Math.min(start + window, series.length);
    const found = detectInWindow(slice(series, start, end), maxPValue);
    for (const cp of found) if (!seen.has(cp.index + start)) seen.set(cp.index + start, cp.qhat);
    const last = found.length ? found[found.length - 1].index + start : 0;
    start = Math.max(last, start + step);
  }
  const indexes = [...seen.keys()].sort((a, b) => a - b);
  return indexes.map((index, i) =>
    pointOf(
      series,
      index,
      seen.get(index) as number,
      i === 0 ? 0 : indexes[i - 1],
      indexes[i + 1] ?? series.length,
    ),
  );
}

/**
 * Otava's merge step: while some point's p-value is not below `maxPValue`, drop the one with the
 * largest p-value; then, while the smallest magnitude is not above `minMagnitude`, drop that one.
 * After each drop the neighbours are recomputed (see `mergeRecompute`).
 */
export function mergeStep(
  weak: OtavaChangePoint[],
  series: ArrayLike<number>,
  maxPValue: number,
  minMagnitude: number,
  mergeRecompute: 'otava' | 'both' = 'otava',
): OtavaChangePoint[] {
  const points = [...weak];
  while (points.length > 0) {
    // Ties and NaN behave as Python's max()/min(): the first wins, NaN never replaces nor is replaced.
    let weakest = 0;
    for (let i = 1; i < points.length; i++) if (points[i].pValue > points[weakest].pValue) weakest = i;
    if (points[weakest].pValue < maxPValue) {
      weakest = 0;
      for (let i = 1; i < points.length; i++)
        if (points[i].magnitude < points[weakest].magnitude) weakest = i;
      if (points[weakest].magnitude > minMagnitude) return points;
    }
    points.splice(weakest, 1);
    const recompute = (i: number) => {
      if (i < 0 || i >= points.length) return;
      const from = i === 0 ? 0 : points[i - 1].index;
      const to = i + 1 < points.length ? points[i + 1].index : series.length;
      points[i] = pointOf(series, points[i].index, points[i].qhat, from, to);
    };
    if (mergeRecompute === 'both') recompute(weakest - 1);
    recompute(weakest);
    if (mergeRecompute === 'otava') recompute(weakest + 1);
  }
  return points;
}

/** Otava's first-pass p-value for the split step: 10x below 0.05, 2x below 0.5, else unchanged. */
export function firstPassPValue(maxPValue: number): number {
  if (maxPValue < 0.05) return maxPValue * 10;
  if (maxPValue < 0.5) return maxPValue * 2;
  return maxPValue;
}

/**
 * Change points as Apache Otava computes them (compute_change_points, non-incremental): the split step
 * at a relaxed p-value, then the merge step at `maxPValue` and `minMagnitude`.
 */
export function otavaChangePoints(series: ArrayLike<number>, options: OtavaOptions = {}): OtavaChangePoint[] {
  const window = options.window ?? OTAVA_DEFAULTS.window;
  const maxPValue = options.maxPValue ?? OTAVA_DEFAULTS.maxPValue;
  const minMagnitude = options.minMagnitude ?? OTAVA_DEFAULTS.minMagnitude;
  checkDetectorInput(series, maxPValue);
  if (!(minMagnitude >= 0)) throw new RangeError('minMagnitude must be >= 0');
  const weak = splitStep(series, window, firstPassPValue(maxPValue));
  return mergeStep(weak, series, maxPValue, minMagnitude, options.mergeRecompute ?? 'otava');
}

/** What both detectors (this one and robust.ts) refuse: a value that is not a finite number, a p-value bound outside (0, 1]. */
export function checkDetectorInput(series: ArrayLike<number>, maxPValue: number): void {
  for (let i = 0; i < series.length; i++) {
    if (!Number.isFinite(series[i])) throw new RangeError(`series[${i}] is not a finite number`);
  }
  if (!(maxPValue > 0 && maxPValue <= 1)) throw new RangeError('maxPValue must be in (0, 1]');
}
