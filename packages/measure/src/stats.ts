import type { PercentileSummary } from './types';

type Numbers = Float64Array | number[];

/**
 * The q-quantile (q in [0, 1]) of ascending `sorted`, by linear interpolation between closest ranks
 * (numpy's default, `method='linear'`): h = (n-1)q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
 * NaN for an empty input.
 */
export function percentile(sorted: Numbers, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  if (lo >= n - 1) return sorted[n - 1];
  return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

/** Sorts a copy of `values` ascending; Float64Array sorts numerically, unlike Array#sort. */
export function sortedCopy(values: Numbers): Float64Array {
  const copy = Float64Array.from(values);
  copy.sort();
  return copy;
}

/** P50/P90/P95/P99/P99.9, mean, population std (numpy's default ddof=0), min and max; null when empty. */
export function percentileSummary(values: Numbers): PercentileSummary | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = sortedCopy(values);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (sorted[i] - mean) ** 2;
  return {
    count: n,
    mean,
    std: Math.sqrt(squares / n),
    min: sorted[0],
    max: sorted[n - 1],
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
  };
}
