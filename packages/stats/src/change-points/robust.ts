import { normalSf } from '../distributions';
import { mannWhitneyU } from '../mann-whitney';
import {
  bestRamp,
  median,
  nearStepLoss,
  rampLoss,
  SPIKE_CAP,
  stepFitsBetter,
  stepTest,
  trimmedMean,
  twoStepLoss,
} from './fits';
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
 *    side), so the evidence for a small step grows with the runs that support it, and the threshold of
 *    relevance is the metric's, not the noise's: a Mann-Whitney p-value at most `maxPValue`
 *    (Bonferroni over the splits of those runs, the candidate being the best of them); a median shift
 *    of at least `minChange`, shown beyond it by a rank test (one-sided p at most 0.05), so a change
 *    under the minimum is never reported however plain; and a step that accounts for those runs
 *    better than one level, a line or a ramp through it (fits.ts: stepFitsBetter), else it is noise
 *    or part of a drift. The worst failing candidate is dropped and both neighbours re-judged, until
 *    every one passes. A confirmed step is then placed, within 6 runs, where two levels fit best in
 *    absolute error capped at 3 sigma (a spike beside a step pulls it nowhere).
 * 4. Drifts: each stretch between confirmed steps gets a Mann-Kendall trend test; a significant trend
 *    that a ramp (or a line) fits at least as well as any single step, and whose ramp joins levels at
 *    least 1.5 x `minChange` apart, is a drift over that ramp.
 */
export interface RobustOptions {
  /** Default 0.001. */
  maxPValue?: number;
  /** The smallest relative change reported (a step's shift; a drift's total is 1.5 x this), e.g. 0.02
   *  for 2%. In a series with a value <= 0 (analysed as it is), relative to the series' median. Default 0.02. */
  minChange?: number;
  /** Runs a side a step is judged on at most. Default 300. */
  window?: number;
  /** The fewest runs between two steps or at an end. Default 5. */
  minSegment?: number;
}

export const ROBUST_DEFAULTS = { maxPValue: 0.001, minChange: 0.02, window: 300, minSegment: 5 } as const;

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
  /** The runs the finding rests on: a step's runs judged before and after it (at most `window` a side);
   *  a drift's runs before its first one since the previous step, and its own runs. */
  runsBefore: number;
  runsAfter: number;
}

export interface RobustResult {
  findings: RobustFinding[];
  /** The noise level sigma, in the analysed scale. */
  noise: number;
  scale: 'log' | 'linear';
}

export function robustChangePoints(series: ArrayLike<number>, options: RobustOptions = {}): RobustResult {
  const maxPValue = options.maxPValue ?? ROBUST_DEFAULTS.maxPValue;
  const minChange = options.minChange ?? ROBUST_DEFAULTS.minChange;
  const window = options.window ?? ROBUST_DEFAULTS.window;
  const minSegment = options.minSegment ?? ROBUST_DEFAULTS.minSegment;
  checkDetectorInput(series, maxPValue);
  if (!(minChange >= 0)) throw new RangeError('minChange must be >= 0');
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
  // The practical minimum in the analysed scale: a log ratio, or a share of the series' typical level.
  const minShift = positive ? Math.log1p(minChange) : minChange * Math.abs(median(Float64Array.from(y)));

  const candidates = segment(y, 0, n, maxPValue, minSegment, BUMP_WINDOWS * SEGMENT_WINDOW).sort(
    (a, b) => a - b,
  );
  const steps = confirm(y, candidates, { maxPValue, minShift, window, noise, minSegment });
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
      runsBefore: step.index - Math.max(i === 0 ? 0 : steps[i - 1].index, step.index - window),
      runsAfter: Math.min(steps[i + 1]?.index ?? n, step.index + window) - step.index,
    };
  });
  const bounds = [0, ...steps.map((s) => s.index), n];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const drift = driftOf(y, bounds[i], bounds[i + 1], { maxPValue, minShift, noise, minSegment });
    if (!drift) continue;
    const before = positive ? Math.exp(drift.before) : drift.before;
    const after = positive ? Math.exp(drift.after) : drift.after;
    findings.push({
      kind: 'drift',
      index: drift.start,
      end: drift.end,
      before,
      after,
      magnitude: before === 0 ? 0 : after / before - 1,
      pValue: drift.pValue,
      effect: drift.effect,
      runsBefore: drift.start - bounds[i],
      runsAfter: drift.end - drift.start,
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
  shift: number;
  passes: boolean;
}

/** Backward elimination of the candidates that fail the local step test (see the module comment). */
function confirm(
  y: Float64Array,
  candidates: number[],
  limits: { maxPValue: number; minShift: number; window: number; noise: number; minSegment: number },
): StepTest[] {
  const points: StepTest[] = candidates.map((index) => ({
    index,
    pValue: 1,
    effect: 0,
    shift: 0,
    passes: false,
  }));
  const judge = (i: number) => {
    const from = Math.max(i === 0 ? 0 : points[i - 1].index, points[i].index - limits.window);
    const to = Math.min(points[i + 1]?.index ?? y.length, points[i].index + limits.window);
    const test = stepTest(y, from, points[i].index, to, limits.noise);
    points[i] = { ...test, index: points[i].index, passes: false };
    // The candidate is the best of the splits of its stretch: its p-value is corrected for them.
    const splits = Math.max(1, to - from - 2 * limits.minSegment + 1);
    points[i].passes =
      test.pValue * splits <= limits.maxPValue &&
      Math.abs(test.shift) >= limits.minShift &&
      beyondMinimum(y, from, points[i].index, to, test.shift, limits.minShift) &&
      stepFitsBetter(y, from, points[i].index, to, limits.noise);
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
  place(y, points, limits);
  return withoutRampsCut(y, points, limits);
}

/**
 * Two neighbouring steps the same way that a ramp between them fits at least as well (it has one
 * level fewer) are a short drift cut in two: both are dropped, and the drift test sees the stretch whole.
 */
function withoutRampsCut(
  y: Float64Array,
  points: StepTest[],
  limits: { window: number; noise: number },
): StepTest[] {
  for (let i = 0; i + 1 < points.length; i++) {
    const [first, second] = [points[i].index, points[i + 1].index];
    if (Math.sign(points[i].shift) !== Math.sign(points[i + 1].shift)) continue;
    const from = Math.max(i === 0 ? 0 : points[i - 1].index, first - limits.window);
    const to = Math.min(points[i + 2]?.index ?? y.length, second + limits.window);
    const steps = twoStepLoss(y, from, first, second, to, limits.noise);
    const reach = (second - first) >> 1;
    let ramp = Infinity;
    for (let start = first - reach; start <= first; start += Math.max(1, reach >> 2))
      for (let end = second; end <= second + reach; end += Math.max(1, reach >> 2))
        if (start - from >= 2 && to - end >= 2)
          ramp = Math.min(ramp, rampLoss(y, from, start, end, to, limits.noise));
    if (ramp <= steps) points.splice(i--, 2);
  }
  return points;
}

/**
 * Places each step, within 6 runs, where two levels (the medians of each side away from the step) fit
 * best in absolute error capped at 3 sigma, so a spike beside a step pulls it nowhere. Again from where
 * it moved, until it stays: a candidate 6 or more runs off reaches its step too.
 */
function place(y: Float64Array, points: StepTest[], limits: { window: number; noise: number }): void {
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

/**
 * True when the runs after `index` differ from those before by more than the practical minimum, by a
 * rank test: the runs before moved by the minimum (in the step's direction) are still below (above)
 * the runs after, one-sided p at most BEYOND_MINIMUM_P. A step estimated just over the minimum from a
 * few runs is not enough; one plainly over it is.
 */
function beyondMinimum(
  y: Float64Array,
  from: number,
  index: number,
  to: number,
  shift: number,
  minShift: number,
): boolean {
  if (minShift === 0) return true;
  const moved = Float64Array.from(y.subarray(from, index), (v) => v + Math.sign(shift) * minShift);
  const test = mannWhitneyU(y.subarray(index, to), moved);
  return Math.sign(test.z) === Math.sign(shift) && test.pValue / 2 <= BEYOND_MINIMUM_P;
}

/** One-sided p-value at which a step is shown to exceed the practical minimum. */
const BEYOND_MINIMUM_P = 0.05;
/** A drift's total change must be this many times the minimum: two same-signed steps under the minimum
 *  add up to a slope too. */
const DRIFT_OVER_STEP = 1.5;
/** Candidate bumps (a level that comes back) span at most BUMP_WINDOWS x SEGMENT_WINDOW runs. */
const SEGMENT_WINDOW = 50;
const BUMP_WINDOWS = 4;

/** Mann-Kendall trend test of y[from..to) with a line fit; null when it is no drift (see the module comment). */
function driftOf(
  y: Float64Array,
  from: number,
  to: number,
  limits: { maxPValue: number; minShift: number; noise: number; minSegment: number },
): { pValue: number; effect: number; start: number; end: number; before: number; after: number } | null {
  const length = to - from;
  if (length < 4 * limits.minSegment) return null;
  const z = mannKendallZ(y, from, to, 0);
  const pValue = Math.min(1, 2 * normalSf(Math.abs(z)));
  if (pValue > limits.maxPValue) return null;
  // A step too small to report also makes a significant trend: a drift is a ramp (or a line through
  // the whole stretch) that fits at least as well as the best single step, and its size is the ramp's.
  const split = bestRankSplit(y, from, to, limits.minSegment).index;
  const ramp = bestRamp(y, from, split, to, limits.noise);
  if (ramp.loss > nearStepLoss(y, from, split, to, limits.noise)) return null;
  const total = Math.abs(ramp.after - ramp.before);
  const minimum = limits.minShift * DRIFT_OVER_STEP;
  if (total < minimum) return null;
  // As for a step, the trend must be shown beyond the minimum: the runs less a line of the minimum
  // total (in the trend's direction) still trend, one-sided p at most BEYOND_MINIMUM_P.
  const beyond = mannKendallZ(y, from, to, (Math.sign(z) * minimum) / (length - 1));
  if (Math.sign(beyond) !== Math.sign(z) || normalSf(Math.abs(beyond)) > BEYOND_MINIMUM_P) return null;
  return { pValue, effect: total / limits.noise, ...ramp };
}

/** Mann-Kendall's standardized S of y[from..to) less a line of `slope` per run (continuity-corrected). */
function mannKendallZ(y: Float64Array, from: number, to: number, slope: number): number {
  const length = to - from;
  let s = 0;
  for (let i = from; i < to; i++) {
    const v = y[i] - slope * i;
    for (let j = i + 1; j < to; j++) s += Math.sign(y[j] - slope * j - v);
  }
  const variance = (length * (length - 1) * (2 * length + 5)) / 18;
  return (s - Math.sign(s)) / Math.sqrt(variance);
}
