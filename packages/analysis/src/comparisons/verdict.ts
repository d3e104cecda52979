import type { Direction } from '@teapot/contracts';

export type Verdict = 'regressed' | 'improved' | 'unchanged' | 'inconclusive';

export interface VerdictInput {
  direction: Direction;
  /** The change from baseline to candidate: relative ((c - b) / b) for most metrics, absolute for fractions. */
  change: number;
  /** The confidence interval of `change`. */
  changeCi: readonly [number, number];
  /** The change that matters, in the same terms, e.g. 0.05 for 5%. */
  threshold: number;
}

/**
 * Decides from the interval, not the point alone: regressed (improved) when the whole interval
 * lies on the worse (better) side of no change and the point change exceeds the threshold;
 * unchanged when the whole interval lies within +-threshold; inconclusive otherwise (the data
 * cannot tell a change that matters from none).
 */
export function rowVerdictOf(input: VerdictInput): Verdict {
  const sign = input.direction === 'lower-is-better' ? 1 : -1;
  const worse = sign * input.change;
  const [a, b] = input.changeCi.map((bound) => sign * bound);
  const low = Math.min(a, b);
  const high = Math.max(a, b);
  if (![worse, low, high].every(Number.isFinite)) return 'inconclusive';
  if (low > 0 && worse > input.threshold) return 'regressed';
  if (high < 0 && -worse > input.threshold) return 'improved';
  if (low >= -input.threshold && high <= input.threshold) return 'unchanged';
  return 'inconclusive';
}

/**
 * One regressed metric makes the whole comparison regressed; otherwise an improvement with nothing
 * inconclusive is improved, all unchanged is unchanged, and anything else is inconclusive.
 */
export function overallVerdictOf(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) return 'inconclusive';
  if (verdicts.includes('regressed')) return 'regressed';
  if (verdicts.includes('inconclusive')) return 'inconclusive';
  return verdicts.includes('improved') ? 'improved' : 'unchanged';
}
