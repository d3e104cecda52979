import type { DeploymentVerdictName, MetricVerification } from './deployments';

/**
 * How a verified deployment reads in a terminal table, a PR comment and a chat message: one
 * wording for a row's name, change and interval, so the three never disagree.
 */
export type VerificationRowFigures = Pick<
  MetricVerification,
  'metric' | 'statistic' | 'unit' | 'baseline' | 'candidate' | 'delta' | 'relative' | 'interval' | 'verdict'
>;

/** `tpot p50 (ms)`; a capacity row names its unit (`capacity (req/s)`), as its statistic is always the mean of searches. */
export function rowName(row: Pick<VerificationRowFigures, 'metric' | 'statistic' | 'unit'>): string {
  const unit = row.unit ? ` (${row.unit})` : '';
  return row.statistic === 'mean' && row.metric === 'capacity'
    ? `capacity${unit}`
    : `${row.metric} ${row.statistic}${unit}`;
}

/** `+89.1%`, or `+1.20 pp` for a fraction whose change is absolute (the error rate); `-` when unknown. */
export function formatChange(delta: number | null, relative: boolean): string {
  if (delta === null || !Number.isFinite(delta)) return '-';
  const sign = delta > 0 ? '+' : delta < 0 ? '-' : '±';
  return relative
    ? `${sign}${Math.abs(delta * 100).toFixed(1)}%`
    : `${sign}${Math.abs(delta * 100).toFixed(2)} pp`;
}

/** `[+85.0%, +93.2%]`, in the terms of `formatChange`; `-` when the row has none. */
export function formatInterval(interval: readonly [number, number] | null, relative: boolean): string {
  if (interval === null) return '-';
  return `[${formatChange(interval[0], relative)}, ${formatChange(interval[1], relative)}]`;
}

/** A figure with three significant digits (whole numbers from 1000 up), `-` when unknown. */
export function formatFigure(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}

/** `6.40 -> 12.1 ms` */
export function formatBeforeAfter(
  row: Pick<VerificationRowFigures, 'baseline' | 'candidate' | 'unit'>,
): string {
  return `${formatFigure(row.baseline)} -> ${formatFigure(row.candidate)}${row.unit ? ` ${row.unit}` : ''}`;
}

/** Whether a verdict passes a gate that fails on these verdict classes (`inconclusive` covers no_baseline). */
export type VerdictClass = 'passed' | 'regressed' | 'inconclusive';

export function verdictClass(verdict: DeploymentVerdictName): VerdictClass {
  if (verdict === 'verified' || verdict === 'improved') return 'passed';
  return verdict === 'regressed' ? 'regressed' : 'inconclusive';
}

/** One mark per verdict class, the same in a PR comment and a chat message. */
export const VERDICT_EMOJI: Readonly<Record<DeploymentVerdictName | 'pending', string>> = {
  verified: '✅',
  improved: '🚀',
  regressed: '🔴',
  inconclusive: '⚪',
  no_baseline: '⚪',
  pending: '⏳',
};
