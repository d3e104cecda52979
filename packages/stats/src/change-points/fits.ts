/**
 * How well levels fit a stretch of a (log) latency series, in noise levels: two levels (a step), two
 * levels joined by a ramp (a drift that levels off), one robust line, or one level, each point's loss
 * capped so that a spike costs every fit the same. The robust detector's step and drift tests read them.
 */
import { mannWhitneyU } from '../mann-whitney';

/** A step at `index` of y[from..to): its Mann-Whitney p-value, median shift, and that in noise levels. */
export function stepTest(y: Float64Array, from: number, index: number, to: number, noise: number) {
  const left = y.subarray(from, index);
  const right = y.subarray(index, to);
  if (left.length === 0 || right.length === 0) return { pValue: 1, effect: 0, shift: 0 };
  const pValue = mannWhitneyU(left, right).pValue;
  const shift = median(Float64Array.from(right)) - median(Float64Array.from(left));
  return { pValue, effect: Math.abs(shift) / noise, shift };
}

/**
 * True when a step at `index` (within 5 runs) is the best account of y[from..to): it beats one level by
 * 3 log(runs), a robust line by log(runs), and no ramp through it beats it by log(runs). The margin a
 * true step earns grows with its runs (about runs x shift^2 / 32 sigma^2); on a drift, a line or a ramp
 * fits better whatever the runs. `strictness` scales the margins (a reported step is kept at half).
 */
export function stepFitsBetter(
  y: Float64Array,
  from: number,
  index: number,
  to: number,
  noise: number,
  strictness = 1,
): boolean {
  const margin = strictness * Math.log(to - from);
  const stepLoss = nearStepLoss(y, from, index, to, noise);
  // Against no change at all the step pays for its level and for where it was searched (a penalty
  // of 3 log(runs), as in the modified BIC): a few runs a little apart between two steps do not.
  if (rampLoss(y, from, to, to, to, noise) - stepLoss < STEP_PENALTY * margin) return false;
  if (lineLoss(y, from, to, noise) - stepLoss < margin) return false;
  // A drift that levels off looks like a step from afar: a ramp of RAMP_WIDTHS runs through the
  // step (starting up to its width before it, in eighths) that fits better makes it part of a drift.
  for (const width of RAMP_WIDTHS) {
    for (let start = index - width; start <= index; start += Math.max(1, width >> 3)) {
      const end = start + width;
      if (start - from < 2 || to - end < 2) continue;
      if (stepLoss - rampLoss(y, from, start, end, to, noise) >= margin) return false;
    }
  }
  return true;
}

/** The smallest loss of a step within RAMP_WIDTHS[0] / 2 runs of `index`: a candidate is not placed yet,
 *  and a step two runs off fits worse than a ramp through it. */
export function nearStepLoss(
  y: Float64Array,
  from: number,
  index: number,
  to: number,
  noise: number,
): number {
  const reach = RAMP_WIDTHS[0] >> 1;
  let best = Infinity;
  for (let split = Math.max(from + 2, index - reach); split <= Math.min(to - 2, index + reach); split++)
    best = Math.min(best, rampLoss(y, from, split, split, to, noise));
  return best;
}

/** The loss (cappedLoss) of the median of y[from..start) before, the median of y[end..to) after and a
 *  straight ramp between them over [start, end): a step when start = end, one level when start = to. */
export function rampLoss(
  y: Float64Array,
  from: number,
  start: number,
  end: number,
  to: number,
  noise: number,
): number {
  const before = median(Float64Array.from(y.subarray(from, start)));
  const after = median(Float64Array.from(y.subarray(end, to)));
  let loss = 0;
  for (let i = from; i < to; i++) {
    const fit =
      i < start ? before : i >= end ? after : before + ((after - before) * (i - start + 0.5)) / (end - start);
    loss += cappedLoss((y[i] - fit) / noise);
  }
  return loss;
}

/** The loss (cappedLoss) of three levels, the medians of y[from..first), y[first..second), y[second..to). */
export function twoStepLoss(
  y: Float64Array,
  from: number,
  first: number,
  second: number,
  to: number,
  noise: number,
): number {
  let loss = 0;
  for (const [a, b] of [
    [from, first],
    [first, second],
    [second, to],
  ]) {
    const level = median(Float64Array.from(y.subarray(a, b)));
    for (let i = a; i < b; i++) loss += cappedLoss((y[i] - level) / noise);
  }
  return loss;
}

export function lineLoss(y: Float64Array, from: number, to: number, noise: number): number {
  const line = lineFit(y, from, to);
  let loss = 0;
  for (let i = from; i < to; i++)
    loss += cappedLoss((y[i] - line.intercept - line.slope * (i - from)) / noise);
  return loss;
}

/** Half the squared error in noise levels, capped at SPIKE_CAP: a spike costs every fit the same, so it
 *  pulls none of them towards itself. */
function cappedLoss(u: number): number {
  return Math.min(u * u, SPIKE_CAP * SPIKE_CAP) / 2;
}

/** What a step must gain over no change, in log(runs) (capped squared loss). */
const STEP_PENALTY = 3;
/** The ramps a step is tried against (runs): a drift narrower than 10 runs is taken for a step. */
const RAMP_WIDTHS = [10, 20, 40, 80, 160];
/** Beyond this many noise levels a point is an outlier to every fit: it costs the same to any of them. */
export const SPIKE_CAP = 3;

/** A robust line through y[from..to): split-half median slope, median intercept. */
export function lineFit(y: Float64Array, from: number, to: number): { slope: number; intercept: number } {
  const length = to - from;
  const half = Math.floor(length / 2);
  const slopes = new Float64Array(half);
  for (let i = 0; i < half; i++) slopes[i] = (y[from + i + half] - y[from + i]) / half;
  const slope = half > 0 ? median(slopes) : 0;
  const intercept = median(Float64Array.from({ length }, (_, i) => y[from + i] - slope * i));
  return { slope, intercept };
}

/**
 * The ramp through `around` (ending at it, centred on it or starting at it; RAMP_WIDTHS and doublings up
 * to the stretch) or the line through all of y[from..to) with the smallest capped squared loss: its first and
 * one-past-last index and the levels it joins.
 */
export function bestRamp(
  y: Float64Array,
  from: number,
  around: number,
  to: number,
  noise: number,
): { start: number; end: number; before: number; after: number; loss: number } {
  const line = lineFit(y, from, to);
  let best = {
    start: from,
    end: to,
    before: line.intercept,
    after: line.intercept + line.slope * (to - from - 1),
    loss: lineLoss(y, from, to, noise),
  };
  for (let width = RAMP_WIDTHS[0]; width < to - from; width *= 2) {
    for (const start of [around - width, around - (width >> 1), around]) {
      const end = start + width;
      if (start - from < 2 || to - end < 2) continue;
      const loss = rampLoss(y, from, start, end, to, noise);
      if (loss < best.loss) {
        const before = median(Float64Array.from(y.subarray(from, start)));
        best = { start, end, before, after: median(Float64Array.from(y.subarray(end, to))), loss };
      }
    }
  }
  return best;
}

export function median(values: Float64Array): number {
  if (values.length === 0) return NaN;
  values.sort();
  const mid = values.length >> 1;
  return values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

export function trimmedMean(values: Float64Array, fraction: number): number {
  const sorted = Float64Array.from(values).sort();
  const cut = Math.floor(sorted.length * fraction);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i++) sum += sorted[i];
  return sum / (sorted.length - 2 * cut);
}
