import { LatencyHistogram, poolOf, type RunStore } from '@teapot/db';

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

/**
 * Each side's ITL distribution from its runs' stored histograms, merged as the trends merge them
 * (the encoded histograms added in place), in one query for both sides.
 */
export async function itlDistributions(
  db: RunStore,
  runIds: { baseline: readonly string[]; candidate: readonly string[] },
): Promise<ComparisonDistributions> {
  const merged = { baseline: new LatencyHistogram(), candidate: new LatencyHistogram() };
  const { rows } = await poolOf(db).query<{ run_id: string; encoded: Buffer }>(
    `SELECT run_id, encoded FROM run_histograms
      WHERE run_id = ANY($1::uuid[]) AND metric = 'itl' AND count > 0`,
    [[...new Set([...runIds.baseline, ...runIds.candidate])]],
  );
  const baseline = new Set(runIds.baseline);
  const candidate = new Set(runIds.candidate);
  for (const row of rows) {
    // A run on both sides counts on both, as it does in the comparison's rows.
    if (baseline.has(row.run_id)) merged.baseline.mergeEncoded(row.encoded);
    if (candidate.has(row.run_id)) merged.candidate.mergeEncoded(row.encoded);
  }
  const side = (histogram: LatencyHistogram): SideDistribution => ({
    samples: histogram.count,
    points: cdfPoints(histogram),
  });
  return { metric: 'itl', unit: 'ms', baseline: side(merged.baseline), candidate: side(merged.candidate) };
}
