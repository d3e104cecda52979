import { normalSf } from '../distributions';
import { mannWhitneyU } from '../mann-whitney';
import { checkDetectorInput } from './otava';

/**
 * A change-point detector for latency series (heavy tails, single-run spikes, slow drifts), built to
 * go past Otava's E-Divisive + t-test there:
 *
 * 1. Scale: positive series are analysed in logarithms, so lognormal noise becomes symmetric and a
 *    step is a relative change. The noise level sigma is 1.4826 * median|y[i+1] - y[i]| / sqrt(2):
 *    differences cancel steps and drifts, the median ignores spikes.
 * 2. Candidates: binary segmentation with a rank statistic (standardized Mann-Whitney, so one spike
 *    moves it by at most one rank), splitting while its Bonferroni p-value is at most `maxPValue`;
 *    where no single split is, the stretch (up to 4 windows long) that differs most from the rest
 *    (a bump that comes back) is tried, as circular binary segmentation does.
 * 3. Confirmation: each candidate is judged on the runs between its neighbours (at most `window` a
 *    side): a Mann-Whitney p-value at most `maxPValue`, a median shift of at least `minEffect` sigma,
 *    and a step must fit those runs better than a straight line (else it is part of a drift). The
 *    worst failing candidate is dropped and both neighbours recomputed, until every one passes.
 *    A confirmed step is then placed, within 6 runs, where two levels fit best in absolute error
 *    capped at 3 sigma (a spike beside a step pulls it nowhere).
 * 4. Drifts: each stretch between confirmed steps gets a Mann-Kendall trend test; a significant
 *    trend whose total change (robust line) is at least 1.5 x `minEffect` sigma is a drift.
 */
export interface RobustOptions {
  /** Default 0.001. */
  maxPValue?: number;
  /** The smallest step (median shift) or drift (total change) reported, in noise levels. Default 2. */
  minEffect?: number;
  /** Runs a side a step is judged on. Default 50. */
  window?: number;
  /** The fewest runs between two steps or at an end. Default 5. */
  minSegment?: number;
}

export const ROBUST_DEFAULTS = { maxPValue: 0.001, minEffect: 2, window: 50, minSegment: 5 } as const;

export interface RobustFinding {
  kind: 'step' | 'drift';
  /** Step: the first index after the change. Drift: the first index of the drifting stretch. */
  index: number;
  /** Step: equal to `index`. Drift: one past the last index of the stretch. */
  end: number;
  /** Step: 10%-trimmed means of the runs between the neighbouring change points, in the series' unit.
   *  Drift: the fitted line at the stretch's first and last run. */
  before: number;
  after: number;
  /** after / before - 1 (0 when before is 0). */
  magnitude: number;
  pValue: number;
  /** |shift| (step) or |total change| (drift) in noise levels. */
  effect: number;
}

export interface RobustResult {
  findings: RobustFinding[];
  /** The noise level sigma, in the analysed scale. */
  noise: number;
  scale: 'log' | 'linear';
}

export function robustChangePoints(series: ArrayLike<number>, options: RobustOptions = {}): RobustResult {
  const maxPValue = options.maxPValue ?? ROBUST_DEFAULTS.maxPValue;
  const minEffect = options.minEffect ?? ROBUST_DEFAULTS.minEffect;
  const window = options.window ?? ROBUST_DEFAULTS.window;
  const minSegment = options.minSegment ?? ROBUST_DEFAULTS.minSegment;
  checkDetectorInput(series, maxPValue);
  if (!(minEffect >= 0)) throw new RangeError('minEffect must be >= 0');
  if (!Number.isInteger(window) || window < 3) throw new RangeError('window must be an integer >= 3');
  if (!Number.isInteger(minSegment) || minSegment < 2)
    throw new RangeError('minSegment must be an integer >= 2');

  const n = series.length;
  let positive = n > 0;
  for (let i = 0; i < n && positive; i++) positive = series[i] > 0;
  const y = Float64Array.from({ length: n }, (_, i) => (positive ? Math.log(series[i]) : series[i]));
  const noise = noiseLevel(y);
  const scale = positive ? 'log' : 'linear';
  if (n < 2 * minSegment) return { findings: [], noise, scale };

  const candidates = segment(y, 0, n, maxPValue, minSegment, 4 * window).sort((a, b) => a - b);
  const steps = confirm(y, candidates, { maxPValue, minEffect, window, noise });
  const level = (from: number, to: number) => {
    const trimmed = trimmedMean(y.subarray(from, to), 0.1);
    return positive ? Math.exp(trimmed) : trimmed;
  };
  const findings: RobustFinding[] = steps.map((step, i) => {
    const before = level(i === 0 ? 0 : steps[i - 1].index, step.index);
    const after = level(step.index, steps[i + 1]?.index ?? n);
    return {
      kind: 'step',
      index: step.index,
      end: step.index,
      before,
      after,
      magnitude: before === 0 ? 0 : after / before - 1,
      pValue: step.pValue,
      effect: step.effect,
    };
  });
  const bounds = [0, ...steps.map((s) => s.index), n];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const drift = driftOf(y, bounds[i], bounds[i + 1], { maxPValue, minEffect, noise, minSegment });
    if (!drift) continue;
    const before = positive ? Math.exp(drift.start) : drift.start;
    const after = positive ? Math.exp(drift.finish) : drift.finish;
    findings.push({
      kind: 'drift',
      index: bounds[i],
      end: bounds[i + 1],
      before,
      after,
      magnitude: before === 0 ? 0 : after / before - 1,
      pValue: drift.pValue,
      effect: drift.effect,
    });
  }
  return {
    findings: findings.sort((a, b) => a.index - b.index || (a.kind === 'step' ? -1 : 1)),
    noise,
    scale,
  };
}

/** 1.4826 * median|first difference| / sqrt(2), falling back to the MAD, then to a tiny positive number. */
export function noiseLevel(y: ArrayLike<number>): number {
  const n = y.length;
  if (n >= 2) {
    const diffs = new Float64Array(n - 1);
    for (let i = 1; i < n; i++) diffs[i - 1] = Math.abs(y[i] - y[i - 1]);
    const fromDiffs = (1.4826 * median(diffs)) / Math.SQRT2;
    if (fromDiffs > 0) return fromDiffs;
    const center = median(Float64Array.from(y));
    const mad = 1.4826 * median(Float64Array.from(y, (v) => Math.abs(v - center)));
    if (mad > 0) return mad;
    return Number.EPSILON * Math.max(1, Math.abs(center));
  }
  return Number.EPSILON;
}

/**
 * Binary segmentation with a rank statistic: in each stretch, the split of the largest standardized
 * Mann-Whitney |z| (at least `minSegment` from either end), kept while its two-sided p-value times the
 * number of splits tried (Bonferroni) is at most `maxPValue`. Standardizing finds steps near an end,
 * where Pettitt's unstandardized statistic is too weak.
 */
function segment(
  y: Float64Array,
  from: number,
  to: number,
  maxPValue: number,
  minSegment: number,
  maxStretch: number,
): number[] {
  const found: number[] = [];
  const stack: Array<[number, number]> = [[from, to]];
  while (stack.length) {
    const [a, b] = stack.pop() as [number, number];
    if (b - a < 2 * minSegment) continue;
    const split = bestRankSplit(y, a, b, minSegment);
    if (split.pValue <= maxPValue) {
      found.push(split.index);
      stack.push([a, split.index], [split.index, b]);
      continue;
    }
    // A bump (a level that comes back) hides from every single split: look for the stretch that
    // differs most from the rest of the segment (circular binary segmentation).
    const bump = bestRankStretch(y, a, b, minSegment, maxStretch);
    if (bump.pValue > maxPValue) continue;
    found.push(bump.start, bump.end);
    stack.push([a, bump.start], [bump.start, bump.end], [bump.end, b]);
  }
  return found;
}

/**
 * The stretch [start, end) of y[a..b) whose ranks differ most from the rest (standardized
 * Mann-Whitney), `minSegment` to `maxStretch` long and leaving at least `minSegment` on each side;
 * Bonferroni over the stretches tried. A longer bump moves a single split's statistic enough.
 */
function bestRankStretch(
  y: Float64Array,
  a: number,
  b: number,
  minSegment: number,
  maxStretch: number,
): { start: number; end: number; pValue: number } {
  const length = b - a;
  const ranks = midRanks(y, a, b);
  const prefix = new Float64Array(length + 1);
  for (let i = 0; i < length; i++) prefix[i + 1] = prefix[i] + ranks[i];
  let best = { start: a, end: b, z: -1 };
  let tried = 0;
  for (let i = minSegment; i < length - 2 * minSegment; i++) {
    for (let j = i + minSegment; j <= Math.min(length - minSegment, i + maxStretch); j++) {
      tried++;
      const inside = j - i;
      const outside = length - inside;
      const u = prefix[j] - prefix[i] - (inside * (inside + 1)) / 2;
      const z = Math.abs(u - (inside * outside) / 2) / Math.sqrt((inside * outside * (length + 1)) / 12);
      if (z > best.z) best = { start: a + i, end: a + j, z };
    }
  }
  return { start: best.start, end: best.end, pValue: Math.min(1, 2 * normalSf(best.z) * Math.max(1, tried)) };
}

function bestRankSplit(
  y: Float64Array,
  a: number,
  b: number,
  minSegment: number,
): { index: number; pValue: number } {
  const length = b - a;
  const ranks = midRanks(y, a, b);
  let best = { index: a + minSegment, z: -1 };
  let rankSum = 0;
  for (let t = 1; t < length; t++) {
    rankSum += ranks[t - 1];
    if (t < minSegment || length - t < minSegment) continue;
    const u = rankSum - (t * (t + 1)) / 2;
    const m = length - t;
    const z = Math.abs(u - (t * m) / 2) / Math.sqrt((t * m * (length + 1)) / 12);
    if (z > best.z) best = { index: a + t, z };
  }
  const splits = length - 2 * minSegment + 1;
  return { index: best.index, pValue: Math.min(1, 2 * normalSf(best.z) * splits) };
}

function midRanks(y: ArrayLike<number>, a: number, b: number): Float64Array {
  const length = b - a;
  const order = Array.from({ length }, (_, i) => i).sort((i, j) => y[a + i] - y[a + j]);
  const ranks = new Float64Array(length);
  for (let start = 0; start < length;) {
    let end = start + 1;
    while (end < length && y[a + order[end]] === y[a + order[start]]) end++;
    const mid = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) ranks[order[k]] = mid;
    start = end;
  }
  return ranks;
}

interface StepTest {
  index: number;
  pValue: number;
  effect: number;
  passes: boolean;
}

/** Backward elimination of the candidates that fail the local step test (see the module comment). */
function confirm(
  y: Float64Array,
  candidates: number[],
  limits: { maxPValue: number; minEffect: number; window: number; noise: number },
): StepTest[] {
  const points = candidates.map((index) => ({ index, pValue: 1, effect: 0, passes: false }));
  const judge = (i: number) => {
    const from = Math.max(i === 0 ? 0 : points[i - 1].index, points[i].index - limits.window);
    const to = Math.min(points[i + 1]?.index ?? y.length, points[i].index + limits.window);
    points[i] = {
      ...stepTest(y, from, points[i].index, to, limits.noise),
      index: points[i].index,
      passes: false,
    };
    points[i].passes = points[i].pValue <= limits.maxPValue && points[i].effect >= limits.minEffect;
    if (points[i].passes) points[i].passes = stepFitsBetter(y, from, points[i].index, to, limits.noise);
  };
  for (let i = 0; i < points.length; i++) judge(i);
  for (;;) {
    let worst = -1;
    for (let i = 0; i < points.length; i++) {
      if (points[i].passes) continue;
      if (worst < 0 || points[i].pValue > points[worst].pValue) worst = i;
    }
    if (worst < 0) break;
    points.splice(worst, 1);
    if (worst - 1 >= 0) judge(worst - 1);
    if (worst < points.length) judge(worst);
  }
  // Place each confirmed step, within 6 runs, where two levels (the medians of each side away from the
  // step) fit best in absolute error capped at 3 sigma, so a spike beside a step pulls it nowhere.
  // Again from where it moved, until it stays: a candidate 6 or more runs off reaches its step too.
  for (let i = 0; i < points.length; i++) {
    const from = Math.max(i === 0 ? 0 : points[i - 1].index, points[i].index - limits.window);
    const to = Math.min(points[i + 1]?.index ?? y.length, points[i].index + limits.window);
    let placed = points[i].index;
    for (let round = 0; round < PLACEMENT_ROUNDS; round++) {
      const next = placeStep(y, from, placed, to, limits.noise);
      if (next === placed) break;
      placed = next;
    }
    if (placed !== points[i].index) {
      points[i] = { ...points[i], ...stepTest(y, from, placed, to, limits.noise), index: placed };
    }
  }
  return points;
}

/** Placements of one step: the first moves it at most 6 runs, each further one 6 more. */
const PLACEMENT_ROUNDS = 4;

function placeStep(y: Float64Array, from: number, index: number, to: number, noise: number): number {
  // A spike costs the same whichever level it is put with: each point's cost is capped at 3 sigma.
  const cap = SPIKE_CAP * noise;
  const zone = 6;
  const lo = Math.max(from + 1, index - zone);
  const hi = Math.min(to - 1, index + zone);
  const levelBefore = median(Float64Array.from(y.subarray(from, Math.max(from + 1, index - zone))));
  const levelAfter = median(Float64Array.from(y.subarray(Math.min(to - 1, index + zone), to)));
  let best = index;
  let bestError = Infinity;
  for (let split = lo; split <= hi; split++) {
    let error = 0;
    for (let i = lo - 1; i <= hi; i++)
      error += Math.min(cap, Math.abs(y[i] - (i < split ? levelBefore : levelAfter)));
    if (error < bestError || (error === bestError && Math.abs(split - index) < Math.abs(best - index))) {
      best = split;
      bestError = error;
    }
  }
  return best;
}

function stepTest(y: Float64Array, from: number, index: number, to: number, noise: number) {
  const left = y.subarray(from, index);
  const right = y.subarray(index, to);
  if (left.length === 0 || right.length === 0) return { pValue: 1, effect: 0 };
  const pValue = mannWhitneyU(left, right).pValue;
  const effect = Math.abs(median(Float64Array.from(right)) - median(Float64Array.from(left))) / noise;
  return { pValue, effect };
}

/**
 * True when two medians (split at `index`) fit y[from..to) with a smaller error than a line, each
 * point's absolute error capped at SPIKE_CAP sigma: a spike costs both fits the same, instead of
 * adding the same large amount to both and pulling their ratio towards 1.
 */
function stepFitsBetter(y: Float64Array, from: number, index: number, to: number, noise: number): boolean {
  const cap = SPIKE_CAP * noise;
  const left = y.subarray(from, index);
  const right = y.subarray(index, to);
  const ml = median(Float64Array.from(left));
  const mr = median(Float64Array.from(right));
  let stepError = 0;
  for (const v of left) stepError += Math.min(cap, Math.abs(v - ml));
  for (const v of right) stepError += Math.min(cap, Math.abs(v - mr));
  return stepError < STEP_OVER_LINE * lineError(y, from, to, cap).error;
}

/** How much smaller a step's absolute error must be than a line's: a 3-sigma step's is ~0.75 of it. */
const STEP_OVER_LINE = 0.9;
/** Beyond this many noise levels a point is an outlier to every fit: it costs this much to any of them. */
const SPIKE_CAP = 3;
/** A drift's total change must be this many times `minEffect`: two same-signed steps below the noise
 *  add up to a slope too. */
const DRIFT_OVER_STEP = 1.5;

/** A robust line through y[from..to): split-half median slope, median intercept; its absolute error (each point's capped at `cap`). */
function lineError(
  y: Float64Array,
  from: number,
  to: number,
  cap = Infinity,
): { slope: number; intercept: number; error: number } {
  const length = to - from;
  const half = Math.floor(length / 2);
  const slopes = new Float64Array(half);
  for (let i = 0; i < half; i++) slopes[i] = (y[from + i + half] - y[from + i]) / half;
  const slope = half > 0 ? median(slopes) : 0;
  const intercept = median(Float64Array.from({ length }, (_, i) => y[from + i] - slope * i));
  let error = 0;
  for (let i = 0; i < length; i++) error += Math.min(cap, Math.abs(y[from + i] - intercept - slope * i));
  return { slope, intercept, error };
}

/** Mann-Kendall trend test of y[from..to) with a line fit; null when it is no drift (see the module comment). */
function driftOf(
  y: Float64Array,
  from: number,
  to: number,
  limits: { maxPValue: number; minEffect: number; noise: number; minSegment: number },
): { pValue: number; effect: number; start: number; finish: number } | null {
  const length = to - from;
  if (length < 4 * limits.minSegment) return null;
  let s = 0;
  for (let i = from; i < to; i++) {
    const v = y[i];
    for (let j = i + 1; j < to; j++) s += Math.sign(y[j] - v);
  }
  const variance = (length * (length - 1) * (2 * length + 5)) / 18;
  const z = (s - Math.sign(s)) / Math.sqrt(variance);
  const pValue = Math.min(1, 2 * normalSf(Math.abs(z)));
  if (pValue > limits.maxPValue) return null;
  const line = lineError(y, from, to);
  const effect = Math.abs(line.slope * (length - 1)) / limits.noise;
  if (effect < limits.minEffect * DRIFT_OVER_STEP) return null;
  return { pValue, effect, start: line.intercept, finish: line.intercept + line.slope * (length - 1) };
}

function median(values: Float64Array): number {
  if (values.length === 0) return NaN;
  values.sort();
  const mid = values.length >> 1;
  return values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

function trimmedMean(values: Float64Array, fraction: number): number {
  const sorted = Float64Array.from(values).sort();
  const cut = Math.floor(sorted.length * fraction);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i++) sum += sorted[i];
  return sum / (sorted.length - 2 * cut);
}
