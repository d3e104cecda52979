import { METRICS, type DiagnosticMetric, type MetricName } from './metrics';

/**
 * A diagnostic that changed significantly between two sides of runs (a comparison, a deployment's
 * verification): what explains a verdict. Values are each side's mean of its runs' values.
 */
export interface DiagnosticChange {
  metric: MetricName;
  label: string;
  unit: string;
  baseline: number;
  candidate: number;
  /** Runs with the value on each side (the others are not counted). */
  runs: { baseline: number; candidate: number };
  /**
   * `rank-test`: two-sided Mann-Whitney U over the per-run values, p <= DIAGNOSTIC_ALPHA.
   * `separation`: the sides are too small for that test to reach DIAGNOSTIC_ALPHA at all, so every
   * candidate run lies beyond every baseline run; indicative, not tested.
   */
  basis: 'rank-test' | 'separation';
  pValue: number;
  /** e.g. "preemptions 0 -> 37 per run", "KV-cache usage (max) 62% -> 99%", "ITL P99 during prefills 20 -> 80 ms (x4.0)". */
  text: string;
}

/** The rank test's level for a diagnostic change. */
export const DIAGNOSTIC_ALPHA = 0.05;

function figure(value: number, unit: string): string {
  if (unit === 'fraction') return `${Math.round(value * 100)}%`;
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toFixed(digits);
}

/** How a change reads wherever it is shown (API, terminal, PR comment, webhooks, dashboard). */
export function diagnosticChangeText(metric: MetricName, baseline: number, candidate: number): string {
  const definition = METRICS[metric] as DiagnosticMetric;
  const { label, unit } = definition;
  const values = `${figure(baseline, unit)} -> ${figure(candidate, unit)}`;
  if (unit === 'fraction') return `${label} ${values}`;
  if (unit === 'ms')
    return `${label} ${values} ms${baseline > 0 ? ` (x${(candidate / baseline).toFixed(1)})` : ''}`;
  return `${label} ${values} ${unit === 'tokens' ? 'tokens' : 'per run'}`;
}

/** Changes as one line: "preemptions 0 -> 37 per run; KV-cache usage (max) 62% -> 99%". */
export function explanationLine(changes: readonly Pick<DiagnosticChange, 'text'>[]): string {
  return changes.map((change) => change.text).join('; ');
}
