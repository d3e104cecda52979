import type { LatencyHistogram } from '@teapot/stats';

/** One point of an empirical CDF: a share `fraction` of the samples are at most `value`. */
export interface CdfPoint {
  /** In the metric's unit (ms). */
  value: number;
  fraction: number;
}

/** A side's distribution of one metric: its merged stored histograms, as CDF points. */
export interface SideDistribution {
  samples: number;
  points: CdfPoint[];
}

export interface ComparisonDistributions {
  metric: 'itl';
  unit: 'ms';
  baseline: SideDistribution;
  candidate: SideDistribution;
}

/**
 * The quantiles a CDF is drawn at: every percent to 99, then every tenth of a percent to 99.9 and
 * every hundredth to 99.99 (the tail a log axis spreads out), and the maximum. 118 points, whatever
 * the number of samples.
 */
export const CDF_QUANTILES: readonly number[] = [
  ...Array.from({ length: 100 }, (_, i) => i / 100),
  ...Array.from({ length: 9 }, (_, i) => (991 + i) / 1000),
  ...Array.from({ length: 9 }, (_, i) => (9991 + i) / 10_000),
  1,
];

/**
 * The CDF of a histogram at CDF_QUANTILES: each value is the histogram's percentile, so it is within
 * HISTOGRAM_RELATIVE_ERROR of the exact one. Equal values (a bucket holding many quantiles) keep
 * only their highest fraction, so the steps stay exact and the count small.
 */
export function cdfPoints(histogram: LatencyHistogram): CdfPoint[] {
  if (histogram.count === 0) return [];
  const points: CdfPoint[] = [];
  for (const q of CDF_QUANTILES) {
    const value = (histogram.percentile(q) ?? 0) / 1000;
    const last = points[points.length - 1];
    if (last && last.value === value) last.fraction = q;
    else points.push({ value, fraction: q });
  }
  return points;
}

/** Each side's ITL distribution from its runs' stored histograms, merged as the trends merge them. */
export function itlDistributions(merged: {
  baseline: LatencyHistogram;
  candidate: LatencyHistogram;
}): ComparisonDistributions {
  const side = (histogram: LatencyHistogram): SideDistribution => ({
    samples: histogram.count,
    points: cdfPoints(histogram),
  });
  return { metric: 'itl', unit: 'ms', baseline: side(merged.baseline), candidate: side(merged.candidate) };
}
