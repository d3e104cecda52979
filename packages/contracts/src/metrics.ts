import type { RequestMetrics, RunSummary } from '@teapot/run-definitions';
import { DIAGNOSTIC_DECLARATIONS, type DiagnosticDeclaration } from './diagnostic-metrics';
import { statisticOf, statisticsOffered, summarySource, type Statistic } from './statistics';

/**
 * The metric catalogue: every metric teapot reports is declared here once, and the run writer's
 * headline columns, the run DTO, the reports and the analysis routes' validation derive from it.
 * Adding a metric is one entry here (plus a migration when it brings a headline column); the
 * statistics it offers come from the statistics catalogue (statistics.ts).
 */

/** What one sample is: a token (ITL), a request (TTFT, TPOT, E2E), or a whole run (rates). */
export type Weighting = 'token' | 'request' | 'run';
export type Direction = 'lower-is-better' | 'higher-is-better';

interface HeadlineDeclaration {
  statistic: Statistic;
  /** The Run field (Prisma model and DTO) holding the run's value. */
  field: string;
  /** Its column in `runs`. */
  column: string;
}

interface MetricBase {
  label: string;
  unit: string;
  weighting: Weighting;
  direction: Direction;
  description: string;
  /** The statistics a trend or comparison may ask of it: those of the statistics catalogue it is offered. */
  statistics: readonly Statistic[];
  /** The run's own values copied into `runs` columns, so listings need no JSON access. */
  headline: readonly HeadlineDeclaration[];
}

/** A per-sample latency distribution: exact percentiles per run, a mergeable histogram when kept. */
export interface DistributionMetric extends MetricBase {
  kind: 'distribution';
  /** Where the run summary keeps its exact percentiles. */
  summaryKey: 'ttftMs' | 'tpotMs' | 'itlMs' | 'interChunkMs' | 'e2eMs';
  /** Where a request's samples (us) are: one value per request, or one per token/gap. */
  requestKey: keyof Pick<RequestMetrics, 'ttftUs' | 'tpotUs' | 'itlUs' | 'interChunkUs' | 'e2eUs'>;
  /** A histogram is stored per run (run_histograms.metric is the catalogue name). */
  histogram: boolean;
}

/**
 * A rate over a run. Over several runs it is pooled: sum of numerators / sum of denominators (e.g.
 * total output tokens / total measured time), never an average of per-run rates.
 */
export interface RateMetric extends MetricBase {
  kind: 'rate';
  /** The run's value as the headline column stores it. */
  perRun(summary: RunSummary): number | null;
  /** The run's share of a pooled value; null when the run has none (e.g. goodput without an SLO). */
  totals(summary: RunSummary): { numerator: number; denominator: number } | null;
}

/**
 * A run-level figure of its client or server diagnostics (diagnostic-metrics.ts): over several runs,
 * the mean of the runs that have it. Trends read it run by run (rollups hold none); comparisons and
 * verifications explain with it rather than judge it.
 */
export type DiagnosticMetric = MetricBase & Omit<DiagnosticDeclaration, keyof MetricBase>;

export type MetricDefinition = DistributionMetric | RateMetric | DiagnosticMetric;

function headline<F extends string, C extends string>(statistic: Statistic, field: F, column: C) {
  return { statistic, field, column } as const;
}

type Declared<M> = M extends MetricDefinition ? Omit<M, 'statistics'> : never;

const DECLARED = {
  ttft: {
    kind: 'distribution',
    label: 'TTFT',
    unit: 'ms',
    weighting: 'request',
    direction: 'lower-is-better',
    description: 'Time to first token: request start to the first chunk carrying an output token.',
    summaryKey: 'ttftMs',
    requestKey: 'ttftUs',
    histogram: true,
    headline: [headline('p50', 'ttftP50Ms', 'ttft_p50_ms'), headline('p99', 'ttftP99Ms', 'ttft_p99_ms')],
  },
  tpot: {
    kind: 'distribution',
    label: 'TPOT',
    unit: 'ms',
    weighting: 'request',
    direction: 'lower-is-better',
    description:
      'Time per output token: (last token - first token) / (output tokens - 1), one sample per request.',
    summaryKey: 'tpotMs',
    requestKey: 'tpotUs',
    histogram: true,
    headline: [headline('p50', 'tpotP50Ms', 'tpot_p50_ms'), headline('p99', 'tpotP99Ms', 'tpot_p99_ms')],
  },
  itl: {
    kind: 'distribution',
    label: 'ITL',
    unit: 'ms',
    weighting: 'token',
    direction: 'lower-is-better',
    description:
      'Inter-token latency: for each token chunk after the first, its gap split evenly over its tokens; one sample per token.',
    summaryKey: 'itlMs',
    requestKey: 'itlUs',
    histogram: true,
    headline: [headline('p50', 'itlP50Ms', 'itl_p50_ms'), headline('p99', 'itlP99Ms', 'itl_p99_ms')],
  },
  inter_chunk: {
    kind: 'distribution',
    label: 'inter-chunk',
    unit: 'ms',
    weighting: 'request',
    direction: 'lower-is-better',
    description: 'Raw gaps between consecutive token chunks (shows server-side bundling); per run only.',
    summaryKey: 'interChunkMs',
    requestKey: 'interChunkUs',
    histogram: false,
    headline: [],
  },
  e2e: {
    kind: 'distribution',
    label: 'E2E',
    unit: 'ms',
    weighting: 'request',
    direction: 'lower-is-better',
    description: 'End to end: request start to the last token chunk.',
    summaryKey: 'e2eMs',
    requestKey: 'e2eUs',
    histogram: true,
    headline: [headline('p50', 'e2eP50Ms', 'e2e_p50_ms'), headline('p99', 'e2eP99Ms', 'e2e_p99_ms')],
  },
  output_tokens_per_s: {
    kind: 'rate',
    label: 'output tok/s',
    unit: 'tokens/s',
    weighting: 'run',
    direction: 'higher-is-better',
    description:
      'Output tokens per second of measured wall time; over several runs, total tokens / total time.',
    perRun: (s: RunSummary) => s.outputTokensPerS,
    totals: (s: RunSummary) => ({ numerator: s.outputTokens, denominator: s.durationS }),
    headline: [headline('mean', 'outputTokensPerS', 'output_tokens_per_s')],
  },
  requests_per_s: {
    kind: 'rate',
    label: 'req/s',
    unit: 'requests/s',
    weighting: 'run',
    direction: 'higher-is-better',
    description:
      'Successful requests per second of measured wall time; over several runs, total / total time.',
    perRun: (s: RunSummary) => s.requestsPerS,
    totals: (s: RunSummary) => ({ numerator: s.requests.succeeded, denominator: s.durationS }),
    headline: [headline('mean', 'requestsPerS', 'requests_per_s')],
  },
  goodput: {
    kind: 'rate',
    label: 'goodput req/s',
    unit: 'requests/s',
    weighting: 'run',
    direction: 'higher-is-better',
    description:
      'Requests per second meeting every SLO the profile sets; runs without an SLO have none. Over several runs, total good requests / their total time.',
    perRun: (s: RunSummary) => s.goodputRps,
    totals: (s: RunSummary) =>
      s.goodputRps === null ? null : { numerator: s.goodputRps * s.durationS, denominator: s.durationS },
    headline: [headline('mean', 'goodputRps', 'goodput_rps')],
  },
  error_rate: {
    kind: 'rate',
    label: 'error rate',
    unit: 'fraction',
    weighting: 'run',
    direction: 'lower-is-better',
    description:
      'Failed / (succeeded + failed) measured requests; over several runs, all failed / all finished requests.',
    perRun: (s: RunSummary) => errorRateOf(s),
    totals: (s: RunSummary) => {
      const finished = s.requests.succeeded + s.requests.failed;
      return finished > 0 ? { numerator: s.requests.failed, denominator: finished } : null;
    },
    headline: [headline('mean', 'errorRate', 'error_rate')],
  },
  ...DIAGNOSTIC_DECLARATIONS,
} as const satisfies Record<string, Declared<MetricDefinition>>;

export type MetricName = keyof typeof DECLARED;

type Catalogue = { [N in MetricName]: (typeof DECLARED)[N] & { statistics: readonly Statistic[] } };

/** The catalogue: each declaration with the statistics the statistics catalogue offers it. */
export const METRICS = Object.fromEntries(
  Object.entries(DECLARED).map(([name, declared]) => [
    name,
    { ...declared, statistics: statisticsOffered({ name, kind: declared.kind }) },
  ]),
  // Object.fromEntries forgets the keys; the map above keeps each one's declaration.
) as unknown as Catalogue;
export const METRIC_NAMES = Object.keys(DECLARED) as MetricName[];

/** The metrics whose per-run histogram is stored, i.e. those a trend can merge over many runs. */
export const HISTOGRAM_METRICS = METRIC_NAMES.filter((name) => {
  const metric: MetricDefinition = METRICS[name];
  return metric.kind === 'distribution' && metric.histogram;
}) as Array<'itl' | 'tpot' | 'ttft' | 'e2e'>;
export type HistogramMetric = (typeof HISTOGRAM_METRICS)[number];

export const RATE_METRICS = METRIC_NAMES.filter((name) => METRICS[name].kind === 'rate');
/** The diagnostic metrics: per-run figures of runs.client_diagnostics and runs.server_diagnostics. */
export const DIAGNOSTIC_METRICS = METRIC_NAMES.filter((name) => METRICS[name].kind === 'diagnostic');
/** The metrics comparisons, verdicts and change points judge (diagnostics explain them instead). */
export const JUDGED_METRIC_NAMES = METRIC_NAMES.filter((name) => METRICS[name].kind !== 'diagnostic');

type HeadlineOf<M> = M extends { headline: ReadonlyArray<infer H> } ? H : never;
type AnyHeadline = HeadlineOf<(typeof METRICS)[MetricName]>;
/** A Run field holding a headline figure, e.g. `itlP99Ms`. */
export type HeadlineField = AnyHeadline extends { field: infer F } ? F : never;

export interface Headline {
  metric: MetricName;
  statistic: Statistic;
  field: HeadlineField;
  column: string;
  /** e.g. "P99 ITL", "output tok/s". */
  label: string;
  unit: string;
}

/** Every headline column, in catalogue order. */
export const HEADLINES: readonly Headline[] = METRIC_NAMES.flatMap((metric) => {
  const definition: MetricDefinition = METRICS[metric];
  return definition.headline.map((h) => ({
    metric,
    statistic: h.statistic,
    field: h.field as HeadlineField,
    column: h.column,
    label:
      definition.kind === 'rate' ? definition.label : `${statisticOf(h.statistic).label} ${definition.label}`,
    unit: definition.unit,
  }));
});

export type HeadlineFigures = Record<HeadlineField, number | null>;

export function isMetricName(value: unknown): value is MetricName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(METRICS, value);
}

/** The run's value of one statistic of a metric, from its exact run summary; null when it has none (diagnostics are not in it). */
export function summaryValue(summary: RunSummary, metric: MetricName, statistic: Statistic): number | null {
  const definition: MetricDefinition = METRICS[metric];
  if (definition.kind === 'rate') return statistic === 'mean' ? definition.perRun(summary) : null;
  if (definition.kind === 'diagnostic') return null;
  const distribution = summary[definition.summaryKey];
  if (!distribution) return null;
  return statisticOf(statistic).of(summarySource(distribution));
}

/** Every headline figure of a run, from its summary (what the run writer stores). */
export function headlineFigures(summary: RunSummary): HeadlineFigures {
  const figures = {} as HeadlineFigures;
  for (const h of HEADLINES) figures[h.field] = summaryValue(summary, h.metric, h.statistic);
  return figures;
}

function errorRateOf(s: RunSummary): number | null {
  const finished = s.requests.succeeded + s.requests.failed;
  return finished > 0 ? s.requests.failed / finished : null;
}
