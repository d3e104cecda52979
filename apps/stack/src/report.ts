import { percentile } from '@teapot/measure';
import type { RunView } from './api-client';

/** The columns of the table: each the median, over an endpoint's runs, of that run's figure. */
export const FIGURES = [
  { key: 'itlP99Ms', header: 'P99 ITL ms' },
  { key: 'tpotP50Ms', header: 'P50 TPOT ms' },
  { key: 'tpotP99Ms', header: 'P99 TPOT ms' },
  { key: 'ttftP50Ms', header: 'P50 TTFT ms' },
  { key: 'ttftP99Ms', header: 'P99 TTFT ms' },
  { key: 'outputTokensPerS', header: 'output tok/s' },
] as const;

export type FigureKey = (typeof FIGURES)[number]['key'];
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
    ...FIGURES.map(({ key }) => formatFigure(key, row.figures[key])),
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

function formatFigure(key: FigureKey, value: number | null): string {
  if (value === null) return '-';
  if (key === 'outputTokensPerS') return Math.round(value).toLocaleString('en-US');
  return value >= 100 ? value.toFixed(1) : value.toFixed(2);
}

function formatRatio(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(2)}x`;
}
