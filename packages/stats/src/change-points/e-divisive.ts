/**
 * The E-Divisive means statistic of Matteson and James (2014) with alpha = 1, as Apache Otava computes
 * it: for a split of z[s..kappa) at tau into X = z[s..tau) (n values) and Y = z[tau..kappa) (m values),
 *
 *   Q(tau, kappa) = 2/(m+n) sum|X_i - Y_j| - 2m/((m+n)(n-1)) sum_{i<k}|X_i - X_k| - 2n/((m+n)(m-1)) sum_{j<k}|Y_j - Y_k|
 *
 * (a within-sum term is 0 when its side has one value). The candidate of an interval is the tau of the
 * largest Q over every tau < kappa in it.
 */
export interface Candidate {
  /** The first index of the right-hand side. */
  index: number;
  qhat: number;
}

/**
 * Within-sums of pairwise distances of one window: `within(a, b)` = sum over a <= i < k < b of
 * |z_i - z_k|, for 0 <= a <= b <= length. O(length^2) memory and time, built once per window.
 */
export class PairDistances {
  private readonly size: number;
  private readonly table: Float64Array;

  constructor(private readonly values: ArrayLike<number>) {
    const n = values.length;
    this.size = n + 1;
    this.table = new Float64Array(this.size * this.size);
    // W(a, b) = W(a + 1, b) + W(a, b - 1) - W(a + 1, b - 1) + |z_a - z_{b-1}|, filled by growing width.
    for (let width = 2; width <= n; width++) {
      for (let a = 0; a + width <= n; a++) {
        const b = a + width;
        this.table[a * this.size + b] =
          this.table[(a + 1) * this.size + b] +
          this.table[a * this.size + b - 1] -
          this.table[(a + 1) * this.size + b - 1] +
          Math.abs(values[a] - values[b - 1]);
      }
    }
  }

  get length(): number {
    return this.values.length;
  }

  within(a: number, b: number): number {
    return this.table[a * this.size + b];
  }

  /** Q of splitting [start, kappa) at tau. */
  q(start: number, tau: number, kappa: number): number {
    const n = tau - start;
    const m = kappa - tau;
    const left = this.within(start, tau);
    const right = this.within(tau, kappa);
    const across = this.within(start, kappa) - left - right;
    const total = m + n;
    let q = (2 / total) * across;
    if (n > 1) q -= ((2 * m) / (total * (n - 1))) * left;
    if (m > 1) q -= ((2 * n) / (total * (m - 1))) * right;
    return q;
  }

  /**
   * The best split of [start, stop): the first (tau, then kappa, ascending) maximum of Q, as numpy's
   * argmax over Otava's Q matrix picks it. Null when the interval has fewer than two values.
   */
  candidate(start: number, stop: number): Candidate | null {
    if (stop - start < 2) return null;
    let best: Candidate | null = null;
    for (let tau = start + 1; tau < stop; tau++) {
      for (let kappa = tau + 1; kappa <= stop; kappa++) {
        const q = this.q(start, tau, kappa);
        if (best === null || q > best.qhat) best = { index: tau, qhat: q };
      }
    }
    return best;
  }
}
