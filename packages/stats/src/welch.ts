import { studentTTwoSided } from './distributions';

/**
 * Welch's interval for exp(mean log b - mean log a) - 1, and its two-sided p-value against no change.
 * A side of one value has no spread of its own: it takes the other side's (the same process measured
 * once more; a change of level, not of spread, is what is asked), with that side's degrees of
 * freedom. Null when neither side has two values.
 */
export function welchOnLogs(
  a: readonly number[],
  b: readonly number[],
  confidence: number,
): { changeCi: [number, number]; pValue: number } | null {
  if (a.length < 2 && b.length < 2) return null;
  if (a.length === 0 || b.length === 0) return null;
  const [ma, ownVa] = meanVariance(a.map(Math.log));
  const [mb, ownVb] = meanVariance(b.map(Math.log));
  const va = a.length > 1 ? ownVa : ownVb;
  const vb = b.length > 1 ? ownVb : ownVa;
  const sa = va / a.length;
  const sb = vb / b.length;
  const se = Math.sqrt(sa + sb);
  const diff = mb - ma;
  if (se === 0) {
    // Identical repeats: the change is exact.
    const exact = Math.exp(diff) - 1;
    return { changeCi: [exact, exact], pValue: diff === 0 ? 1 : 0 };
  }
  const df =
    a.length > 1 && b.length > 1
      ? (sa + sb) ** 2 / (sa ** 2 / (a.length - 1) + sb ** 2 / (b.length - 1))
      : Math.max(a.length, b.length) - 1;
  const t = tQuantile(1 - confidence, df);
  return {
    changeCi: [Math.exp(diff - t * se) - 1, Math.exp(diff + t * se) - 1],
    pValue: studentTTwoSided(diff / se, df),
  };
}

/** Mean and sample variance (0 for a single value). */
function meanVariance(values: readonly number[]): [number, number] {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  if (values.length < 2) return [mean, 0];
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
  return [mean, variance];
}

/** The t with two-sided tail probability `alpha` at `df` degrees of freedom, by bisection. */
export function tQuantile(alpha: number, df: number): number {
  let low = 0;
  let high = 1;
  while (studentTTwoSided(high, df) > alpha) high *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2;
    if (studentTTwoSided(mid, df) > alpha) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}
