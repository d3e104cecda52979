import { DIAGNOSTIC_METRICS, METRICS, type DiagnosticMetric } from '@teapot/contracts/catalogue';
import { formatMs } from './format';

export interface DiagnosticRow {
  label: string;
  value: string;
  /** The trend metric it is, to plot its history. */
  metric: string;
}

/** A diagnostic's value as it reads: a share in percent, milliseconds, or a count to 3 figures. */
export function formatDiagnostic(value: number, unit: string): string {
  if (unit === 'fraction') return `${Number((value * 100).toPrecision(3))}%`;
  if (unit === 'ms') return formatMs(value);
  return `${Number(value.toPrecision(3))} ${unit}`;
}

/**
 * The figures a run's stored diagnostics hold, in catalogue order with the catalogue's labels; a
 * figure the run has not is left out (not shown as 0).
 */
export function diagnosticRows(source: 'client' | 'server', stored: unknown): DiagnosticRow[] {
  if (!stored || typeof stored !== 'object') return [];
  const values = stored as Record<string, unknown>;
  return DIAGNOSTIC_METRICS.flatMap((metric) => {
    const { diagnostic, label, unit } = METRICS[metric] as DiagnosticMetric;
    const value = diagnostic.source === source ? values[diagnostic.field] : undefined;
    return typeof value === 'number' && Number.isFinite(value)
      ? [{ metric, label, value: formatDiagnostic(value, unit) }]
      : [];
  });
}
