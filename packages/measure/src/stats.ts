import { percentile } from '@teapot/run-definitions';
import type { PercentileSummary } from './types';

type Numbers = Float64Array | number[];

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
