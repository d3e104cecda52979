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
