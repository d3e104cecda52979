import type { Schemas } from '../api/client';
import { CONFIG_FIELDS } from './config';
import { formatTrendValue } from './trend';

// openapi-typescript marks a field with a default as required; the API fills it in when left out.
type Side = Omit<Schemas['ComparisonSideDto'], 'includeSaturated'> & { includeSaturated?: boolean };
type MetricComparison = Schemas['MetricComparisonDto'];
export type SideName = 'baseline' | 'candidate';

/** One side of the compare form as the URL keeps it: every field text, empty when unset. */
export interface SideForm {
  endpointId: string;
  /** ISO 8601, or a datetime-local value (read in the browser's time zone). */
  from: string;
  to: string;
  /** A serving-configuration field and the value its runs must have ("unset" for none). */
  field: string;
  value: string;
  /** Run ids separated by commas, spaces or new lines; when given they are the side. */
  runIds: string;
}

const FORM_KEYS = ['endpointId', 'from', 'to', 'field', 'value', 'runIds'] as const;

export function emptySide(): SideForm {
  return { endpointId: '', from: '', to: '', field: 'weightQuant', value: '', runIds: '' };
}

/** A side from the page's URL (`baseline.field=weightQuant&baseline.value=fp16...`). */
export function sideFromQuery(query: URLSearchParams, side: SideName): SideForm {
  const form = emptySide();
  for (const key of FORM_KEYS) {
    const value = query.get(`${side}.${key}`);
    if (value !== null) form[key] = value;
  }
  return form;
}

/** Both sides as the URL's query: only what is set, so links stay short. */
export function comparisonQuery(sides: Record<SideName, SideForm>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const side of ['baseline', 'candidate'] as const) {
    for (const key of FORM_KEYS) {
      const value = sides[side][key].trim();
      if (value && !(key === 'field' && !sides[side].value.trim())) query[`${side}.${key}`] = value;
    }
  }
  return query;
}

/** Whether the URL names a comparison to make (any side field set). */
export function hasComparison(query: URLSearchParams): boolean {
  return [...query.keys()].some((key) => key.startsWith('baseline.') || key.startsWith('candidate.'));
}

function typedValue(field: string, text: string): string | number | boolean | null {
  if (text === 'unset' || text === 'null') return null;
  const type = CONFIG_FIELDS.find((f) => f.name === field)?.type ?? 'text';
  if (type === 'bool' && (text === 'true' || text === 'false')) return text === 'true';
  if (type === 'int' && /^-?\d+$/.test(text)) return Number(text);
  // Anything else goes as typed: the API names the field when the value does not fit it.
  return text;
}

function isoTime(text: string): string {
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? text : at.toISOString();
}

/**
 * A side of POST /comparisons: the named runs, or a window (default: the last 7 days before `now`)
 * narrowed to an endpoint and a configuration value; all of it when given together.
 */
export function sideBody(form: SideForm, includeSaturated: boolean, now = new Date()): Side {
  const body: Side = {};
  const runIds = form.runIds.split(/[\s,]+/).filter(Boolean);
  if (runIds.length > 0) body.runIds = runIds;
  if (form.from.trim()) body.from = isoTime(form.from.trim());
  else if (runIds.length === 0) body.from = new Date(now.getTime() - 7 * 86_400_000).toISOString();
  if (form.to.trim()) body.to = isoTime(form.to.trim());
  if (form.endpointId.trim()) body.endpointIds = [form.endpointId.trim()];
  if (form.field && form.value.trim())
    body.config = { [form.field]: [typedValue(form.field, form.value.trim())] };
  if (includeSaturated) body.includeSaturated = true;
  return body;
}

export interface ComparisonRow {
  key: string;
  metric: string;
  baseline: string;
  candidate: string;
  change: string;
  interval: string;
  pValue: string;
  verdict: MetricComparison['verdict'];
}

const METRIC_LABELS: Record<string, string> = {
  itl: 'ITL',
  tpot: 'TPOT',
  ttft: 'TTFT',
  e2e: 'E2E',
  inter_chunk: 'inter-chunk',
  output_tokens_per_s: 'output tokens/s',
  requests_per_s: 'requests/s',
  goodput: 'goodput req/s',
  error_rate: 'error rate',
};

function percent(value: number): string {
  const text = `${Number((value * 100).toPrecision(3))} %`;
  return value > 0 ? `+${text}` : text;
}

function signed(value: number, unit: string, statistic: string): string {
  const text = formatTrendValue(value, unit, statistic);
  return value > 0 ? `+${text}` : text;
}

/**
 * The comparison's rows as the table reads them: both values in the metric's unit, the change
 * (absolute, and relative when there is one), its 95% interval (relative for ratios of positive
 * values, absolute for error rates), the rank test's p-value, and the verdict. A row without an
 * interval says why instead.
 */
export function comparisonRows(metrics: readonly MetricComparison[]): ComparisonRow[] {
  return metrics.map((row) => {
    const rate = row.weighting === 'run';
    const absolute = row.threshold.kind === 'absolute';
    let change = '–';
    if (row.delta !== null) {
      change = signed(row.delta, row.unit, row.statistic);
      if (row.relativeDelta !== null && !absolute) change += ` (${percent(row.relativeDelta)})`;
    }
    let interval = row.insufficient ?? '–';
    if (row.relativeCi && !absolute)
      interval = `${percent(row.relativeCi[0])} … ${percent(row.relativeCi[1])}`;
    else if (row.ci)
      interval = `${signed(row.ci[0], row.unit, row.statistic)} … ${signed(row.ci[1], row.unit, row.statistic)}`;
    return {
      key: `${row.metric}.${row.statistic}`,
      metric: rate
        ? (METRIC_LABELS[row.metric] ?? row.metric)
        : `${METRIC_LABELS[row.metric] ?? row.metric} ${row.statistic}`,
      baseline: formatTrendValue(row.baseline, row.unit, row.statistic),
      candidate: formatTrendValue(row.candidate, row.unit, row.statistic),
      change,
      interval,
      pValue: row.pValue === null ? '–' : row.pValue < 1e-4 ? '< 0.0001' : row.pValue.toPrecision(2),
      verdict: row.verdict,
    };
  });
}

type Distributions = Schemas['DistributionsDto'];

export interface CdfPlotData {
  /** uPlot's aligned data: x (ITL, ms) over both sides' points, then each side's share of tokens at or below it. */
  data: [number[], Array<number | null>, Array<number | null>];
  labels: [string, string];
}

/**
 * Both sides' ITL CDFs on one x: the union of their points' values, each side null where it has no
 * point (the line joins its own points). A value of 0 has no place on a log axis and is left out.
 */
export function cdfPlotData(distributions: Distributions): CdfPlotData | null {
  const sides = [distributions.baseline, distributions.candidate].map(
    (side) => new Map(side.points.filter((p) => p.value > 0).map((p) => [p.value, p.fraction])),
  );
  if (sides.some((side) => side.size === 0)) return null;
  const xs = [...new Set(sides.flatMap((side) => [...side.keys()]))].sort((a, b) => a - b);
  const column = (side: Map<number, number>) => xs.map((x) => side.get(x) ?? null);
  const label = (name: SideName, samples: number) => `${name} (${samples.toLocaleString('en')} tokens)`;
  return {
    data: [xs, column(sides[0]), column(sides[1])],
    labels: [
      label('baseline', distributions.baseline.samples),
      label('candidate', distributions.candidate.samples),
    ],
  };
}
