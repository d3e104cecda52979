import {
  DIAGNOSTIC_ALPHA,
  DIAGNOSTIC_METRICS,
  diagnosticChangeText,
  diagnosticValue,
  METRICS,
  type DiagnosticChange,
  type DiagnosticMetric,
} from '@teapot/contracts';
import type { RunDiagnostics } from '@teapot/db';
import { mannWhitneyU } from '@teapot/stats';

/**
 * The diagnostics that changed significantly between two sides, in catalogue order. Per diagnostic,
 * each side's per-run values (runs without one left out; a diagnostic absent on either side is not
 * compared) must differ
 * - statistically: two-sided Mann-Whitney U p <= DIAGNOSTIC_ALPHA; when the sides are too small for
 *   any outcome to reach it (e.g. 3 runs against 3: the smallest p is 0.1), every candidate value
 *   must lie beyond every baseline value instead, said as `basis: 'separation'`;
 * - practically: the change in means at least the diagnostic's `practical.absolute` and, as a share
 *   of the baseline mean, its `practical.relative` (each when set), so that a tested but tiny move
 *   (0.71 -> 0.70 acceptance over many runs) explains nothing.
 */
export function diagnosticChanges(
  baseline: Iterable<RunDiagnostics>,
  candidate: Iterable<RunDiagnostics>,
): DiagnosticChange[] {
  const sides = { baseline: [...baseline], candidate: [...candidate] };
  const changes: DiagnosticChange[] = [];
  for (const metric of DIAGNOSTIC_METRICS) {
    const definition = METRICS[metric] as DiagnosticMetric;
    const valuesOf = (runs: RunDiagnostics[]) =>
      runs.map((run) => diagnosticValue(definition.diagnostic, run)).filter((v): v is number => v !== null);
    const a = valuesOf(sides.baseline);
    const b = valuesOf(sides.candidate);
    if (a.length === 0 || b.length === 0) continue;
    const meanA = mean(a);
    const meanB = mean(b);
    if (!practical(definition, meanA, meanB)) continue;
    const test = mannWhitneyU(b, a);
    const reachable = smallestPValue(a.length, b.length) <= DIAGNOSTIC_ALPHA;
    const significant = reachable ? test.pValue <= DIAGNOSTIC_ALPHA : separated(a, b);
    if (!significant) continue;
    changes.push({
      metric,
      label: definition.label,
      unit: definition.unit,
      baseline: meanA,
      candidate: meanB,
      runs: { baseline: a.length, candidate: b.length },
      basis: reachable ? 'rank-test' : 'separation',
      pValue: test.pValue,
      text: diagnosticChangeText(metric, meanA, meanB),
    });
  }
  return changes;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function practical(definition: DiagnosticMetric, a: number, b: number): boolean {
  const change = Math.abs(b - a);
  if (change === 0) return false;
  const { absolute, relative } = definition.practical;
  if (absolute !== undefined && change < absolute) return false;
  if (relative !== undefined && a !== 0 && change / Math.abs(a) < relative) return false;
  return true;
}

/** The rank test's p-value for completely separated sides of these sizes: the smallest it can give. */
function smallestPValue(n1: number, n2: number): number {
  const low = Array.from({ length: n1 }, (_, i) => i);
  const high = Array.from({ length: n2 }, (_, i) => n1 + i);
  return mannWhitneyU(low, high).pValue;
}

/** Every value of one side beyond every value of the other. */
function separated(a: readonly number[], b: readonly number[]): boolean {
  return Math.min(...b) > Math.max(...a) || Math.max(...b) < Math.min(...a);
}
