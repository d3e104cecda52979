import { HEADLINES, type Headline, type HeadlineField } from '@teapot/contracts';
import { percentile, SATURATION } from '@teapot/measure';
import type { ComparisonView, RunView, TrendView } from './api-client';

const SHOWN = ['itlP99Ms', 'tpotP50Ms', 'tpotP99Ms', 'ttftP50Ms', 'ttftP99Ms', 'outputTokensPerS'] as const;
export type FigureKey = (typeof SHOWN)[number] & HeadlineField;

/** The columns of the table (catalogue headlines): each the median, over an endpoint's runs, of that run's figure. */
export const FIGURES = SHOWN.map((key) => {
  const h = HEADLINES.find((headline) => headline.field === key) as Headline;
  return { key, header: h.unit === 'ms' ? `${h.label} ms` : h.label, unit: h.unit };
});
export type Figures = Record<FigureKey, number | null>;

export interface EndpointRow {
  endpoint: string;
  quant: string;
  /** Runs the medians are over (succeeded or partial). */
  runs: number;
  figures: Figures;
}

/** Median (numpy-linear, as every teapot percentile) of each figure over the runs that have it. */
export function medianFigures(runs: RunView[]): Figures {
  const figures = {} as Figures;
  for (const { key } of FIGURES) {
    const values = runs
      .map((run) => run[key])
      .filter((value): value is number => typeof value === 'number' && Number.isFinite(value))
      .sort((a, b) => a - b);
    figures[key] = values.length > 0 ? percentile(values, 0.5) : null;
  }
  return figures;
}

/** `candidate / baseline` per figure (e.g. FP8 / FP16): below 1 is faster for times, above 1 for tok/s. */
export function ratios(candidate: Figures, baseline: Figures): Figures {
  const result = {} as Figures;
  for (const { key } of FIGURES) {
    const a = candidate[key];
    const b = baseline[key];
    result[key] = a !== null && b !== null && b > 0 ? a / b : null;
  }
  return result;
}

export function renderTable(rows: EndpointRow[], ratio?: { label: string; figures: Figures }): string {
  const header = ['endpoint', 'quant', 'runs', ...FIGURES.map((figure) => figure.header)];
  const body = rows.map((row) => [
    row.endpoint,
    row.quant,
    String(row.runs),
    ...FIGURES.map(({ key, unit }) => formatFigure(unit, row.figures[key])),
  ]);
  if (ratio) {
    body.push([ratio.label, '', '', ...FIGURES.map(({ key }) => formatRatio(ratio.figures[key]))]);
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column].length)),
  );
  // Names left-aligned, numbers right-aligned.
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n') + '\n';
}

/** How the runs were measured (transport, measurement package version), and how many the client lagged on. */
export function describeMethod(runs: RunView[]): string {
  const methods = new Map<string, number>();
  for (const run of runs) {
    const key = `${run.transport ?? 'unknown'} transport, @teapot/measure ${run.measureVersion ?? 'unknown'}`;
    methods.set(key, (methods.get(key) ?? 0) + 1);
  }
  const saturated = runs.filter((run) => run.clientSaturated === true).length;
  const parts = [...methods].map(([method, n]) => `${method} (${n} run${n === 1 ? '' : 's'})`);
  let text = `Measured with: ${parts.join('; ') || 'no runs'}.`;
  if (saturated > 0)
    text +=
      ` Client saturated on ${saturated} of ${runs.length} runs: the measuring client's token timestamps were late` +
      ` by more than ${SATURATION.boundMs} ms at P99, so their tail latencies may show the client (see` +
      ' clientHealth.saturatedReason); rerun those with fewer concurrent streams or runs per worker.';
  return `${text}\n`;
}

function formatFigure(unit: string, value: number | null): string {
  if (value === null) return '-';
  if (unit === 'tokens/s') return Math.round(value).toLocaleString('en-US');
  return value >= 100 ? value.toFixed(1) : value.toFixed(2);
}

function formatRatio(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(2)}x`;
}

/** One line per series of a trend: its key, then each point's value (and the runs it stands on). */
export function renderTrend(trend: TrendView): string {
  if (trend.series.length === 0) return `(no points: ${trend.reason ?? 'nothing matched'})\n`;
  const lines = trend.series.map((series) => {
    const key = Object.values(series.key).map(String).join(' ');
    const points = series.points.map((p) => (p.value === null ? '-' : p.value.toFixed(2))).join('  ');
    const runs = series.points.reduce((n, p) => n + p.runs, 0);
    return `  ${key}: ${points} ${trend.unit}  (${series.points.length} points, ${runs} runs)`;
  });
  if (trend.excludedSaturatedRuns > 0)
    lines.push(`  (${trend.excludedSaturatedRuns} client-saturated runs left out)`);
  return lines.join('\n') + '\n';
}

/** A metric's short name in the demo's tables. */
const LABELS: Record<string, string> = {
  itl: 'ITL',
  tpot: 'TPOT',
  ttft: 'TTFT',
  e2e: 'E2E',
  output_tokens_per_s: 'output tok/s',
  requests_per_s: 'req/s',
  error_rate: 'error rate',
};

export const metricLabel = (metric: string) => LABELS[metric] ?? metric;

/** A relative change, signed, in percent. */
export const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;

/** A comparison as a table: per metric both values, the change and its interval, the p-value and the verdict. */
export function renderComparison(
  view: ComparisonView,
  names: { baseline: string; candidate: string },
): string {
  if (view.metrics.length === 0) return `(no comparison: ${view.reason ?? 'nothing matched'})\n`;
  const rows = view.metrics.map((m) => {
    const name =
      m.unit === 'ms' || m.unit === 'ratio'
        ? `${m.statistic.toUpperCase()} ${metricLabel(m.metric)}`
        : metricLabel(m.metric);
    const value = (v: number | null) => (v === null ? '-' : `${v.toFixed(m.unit === 'fraction' ? 3 : 2)}`);
    return [
      name,
      m.unit,
      value(m.baseline),
      value(m.candidate),
      m.relativeDelta === null ? '-' : percent(m.relativeDelta),
      m.relativeCi ? `[${percent(m.relativeCi[0])}, ${percent(m.relativeCi[1])}]` : '-',
      m.pValue === null ? '-' : m.pValue < 1e-4 ? '<1e-4' : m.pValue.toFixed(4),
      m.insufficient ? `${m.verdict} (${m.insufficient})` : m.verdict,
    ];
  });
  const header = [
    '',
    'unit',
    names.baseline,
    names.candidate,
    'change',
    '95% interval',
    'p (MWU)',
    'verdict',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}`.trimEnd();
  const lines = [line(header), ...rows.map(line)];
  if (view.roofline) {
    const side = (name: string, r: NonNullable<ComparisonView['roofline']>['baseline']) =>
      r.floorMs === null
        ? `${name} - (${r.reason ?? 'unknown'})`
        : `${name} ${r.floorMs.toFixed(2)} ms` +
          (r.achievedFraction === null
            ? ''
            : ` (P50 TPOT ${r.tpotP50Ms!.toFixed(2)} ms: ${(r.achievedFraction * 100).toFixed(0)}% of it)`);
    lines.push(
      `  memory-bound TPOT floor (weight bytes / HBM bandwidth${view.roofline.baseline.gpu ? `, ${view.roofline.baseline.gpu}` : ''}): ` +
        `${side(names.baseline, view.roofline.baseline)}; ${side(names.candidate, view.roofline.candidate)}`,
    );
  }
  lines.push(`  resampled: ${view.resampling.unit} (${view.resampling.why})`);
  for (const note of view.notes) lines.push(`  note: ${note}`);
  lines.push(`  overall: ${view.verdict}`);
  return lines.join('\n') + '\n';
}
