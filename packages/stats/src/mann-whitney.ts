import { normalSf } from './distributions';

export interface MannWhitneyResult {
  /** U of the first sample: the number of pairs (a_i, b_j) with a_i > b_j, ties counting one half. */
  u: number;
  /** (U - n_a n_b / 2) / sigma with tie correction and a continuity correction of 0.5 towards 0; > 0 when `a` tends to be larger. */
  z: number;
  /** Two-sided p-value. */
  pValue: number;
  method: 'exact' | 'normal';
}

/** The exact null distribution is used up to this size of the smaller sample (scipy's `method='auto'`). */
const EXACT_MAX_SMALLER = 8;

/**
 * Two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu (`use_continuity=True`,
 * `method='auto'`): exact when one sample has at most 8 values and nothing ties, otherwise the
 * normal approximation with tie correction.
 */
export function mannWhitneyU(a: ArrayLike<number>, b: ArrayLike<number>): MannWhitneyResult {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0) throw new RangeError('mannWhitneyU: sample a is empty');
  if (n2 === 0) throw new RangeError('mannWhitneyU: sample b is empty');
  const pooled = new Float64Array(n1 + n2);
  for (let i = 0; i < n1; i++) pooled[i] = checked(a[i], 'a', i);
  for (let j = 0; j < n2; j++) pooled[n1 + j] = checked(b[j], 'b', j);
  const order = Array.from(pooled.keys()).sort((x, y) => pooled[x] - pooled[y]);

  const n = n1 + n2;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && pooled[order[end]] === pooled[order[start]]) end++;
    const midRank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) if (order[k] < n1) rankSumA += midRank;
    const t = end - start;
    tieTerm += t * t * t - t;
    start = end;
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mu = (n1 * n2) / 2;

  if (Math.min(n1, n2) <= EXACT_MAX_SMALLER && tieTerm === 0) {
    const upper = Math.max(u, n1 * n2 - u);
    const pValue = Math.min(1, 2 * exactUpperTail(upper, n1, n2));
    return { u, z: standardized(u, mu, n1, n2, n, tieTerm), pValue, method: 'exact' };
  }
  const z = standardized(u, mu, n1, n2, n, tieTerm);
  return { u, z, pValue: Math.min(1, 2 * normalSf(Math.abs(z))), method: 'normal' };
}

function checked(value: number, side: string, index: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`mannWhitneyU: ${side}[${index}] is not a finite number`);
  return value;
}

function standardized(u: number, mu: number, n1: number, n2: number, n: number, tieTerm: number): number {
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sigma === 0) return 0;
  const distance = Math.max(Math.abs(u - mu) - 0.5, 0);
  return (Math.sign(u - mu) * distance) / sigma;
}

/**
 * P(U >= u) under the null: the coefficients of the Gaussian binomial [n1 + n2 choose n1] count
 * the arrangements giving each U.
 */
function exactUpperTail(u: number, n1: number, n2: number): number {
  const m = Math.min(n1, n2);
  const k = Math.max(n1, n2);
  const degree = m * k;
  let counts = new Float64Array(degree + 1);
  counts[0] = 1;
  // Multiply by (1 - q^(k+i)) / (1 - q^i) for i = 1..m; each step leaves [k + i choose i].
  for (let i = 1; i <= m; i++) {
    const next = new Float64Array(degree + 1);
    const top = k + i;
    for (let d = degree; d >= 0; d--) next[d] = counts[d] - (d >= top ? counts[d - top] : 0);
    for (let d = i; d <= degree; d++) next[d] += next[d - i];
    counts = next;
  }
  let total = 0;
  let tail = 0;
  for (let d = 0; d <= degree; d++) {
    total += counts[d];
    if (d >= u) tail += counts[d];
  }
  return tail / total;
}
