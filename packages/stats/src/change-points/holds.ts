import { median, stepFitsBetter, stepTest } from './fits';
import { noiseLevel, ROBUST_DEFAULTS, type RobustOptions } from './robust';

/** How much weaker than a new step's evidence a reported one's may become before it is withdrawn. */
const RETAIN_P_FACTOR = 100;
/** And how much smaller the margins by which it must fit better than no step, a line or a ramp. */
const RETAIN_STRICTNESS = 0.5;

/**
 * Whether a step reported at `index` still holds, with hysteresis: on the runs up to `window` a side
 * (stopping at `bounds`, the neighbouring change points), a Mann-Whitney p-value (Bonferroni over the
 * splits) up to 100 x `maxPValue`, a median shift of at least `minChange`, and the step still the best
 * account of those runs by half the margins a new step needs (fits.ts: stepFitsBetter). A step first found on marginal evidence is then not
 * withdrawn at the next run and found again at the one after: as runs arrive its evidence grows.
 */
export function stepStillHolds(
  series: ArrayLike<number>,
  index: number,
  bounds: { from: number; to: number },
  options: RobustOptions = {},
): boolean {
  const maxPValue = options.maxPValue ?? ROBUST_DEFAULTS.maxPValue;
  const minChange = options.minChange ?? ROBUST_DEFAULTS.minChange;
  const window = options.window ?? ROBUST_DEFAULTS.window;
  const minSegment = options.minSegment ?? ROBUST_DEFAULTS.minSegment;
  const n = series.length;
  if (index < minSegment || n - index < minSegment) return false;
  let positive = true;
  for (let i = 0; i < n && positive; i++) positive = series[i] > 0;
  const y = Float64Array.from({ length: n }, (_, i) => (positive ? Math.log(series[i]) : series[i]));
  const noise = noiseLevel(y);
  const minShift = positive ? Math.log1p(minChange) : minChange * Math.abs(median(Float64Array.from(y)));
  const from = Math.max(0, bounds.from, index - window);
  const to = Math.min(n, bounds.to, index + window);
  const test = stepTest(y, from, index, to, noise);
  const splits = Math.max(1, to - from - 2 * minSegment + 1);
  return (
    test.pValue * splits <= RETAIN_P_FACTOR * maxPValue &&
    Math.abs(test.shift) >= minShift &&
    stepFitsBetter(y, from, index, to, noise, RETAIN_STRICTNESS)
  );
}
