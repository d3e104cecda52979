import {
  isMetricName,
  METRICS,
  STATISTICS,
  type MetricDefinition,
  type MetricName,
  type Statistic,
} from '@teapot/contracts';
import { SERVING_CONFIG_FIELDS } from '@teapot/db';
import { AnalysisInputError } from '../errors';
import { checkSelection, type RunSelection } from '../selection';
import { checkThresholds, thresholdOf, type ComparisonThreshold, type Thresholds } from './thresholds';

/**
 * One side of a comparison: a set of run ids, a time window, a configuration filter, or any mix
 * (every field narrows). Without runIds the window start `from` is required; `to` defaults to now.
 */
export type ComparisonSide = Omit<RunSelection, 'from' | 'to'> & { from?: Date; to?: Date };

export const RESAMPLE_CHOICES = ['auto', 'runs', 'requests'] as const;
export type ResampleChoice = (typeof RESAMPLE_CHOICES)[number];

export interface ComparisonQuery {
  baseline: ComparisonSide;
  candidate: ComparisonSide;
  /** Catalogue metrics (default DEFAULT_COMPARISON_METRICS). */
  metrics?: string[];
  /** Statistics of the distribution metrics (default p50, p90, p99); a rate is always its pooled mean. */
  statistics?: string[];
  /**
   * The change that matters, by metric (`itl`) or metric and statistic (`itl.p99`, which wins):
   * relative (0.05 = 5%), absolute for fractions (error_rate: 0.01 = one percentage point). A row the
   * request sets no threshold for takes its profile's (profiles.comparisonThresholds), else the default.
   */
  thresholds?: Record<string, number>;
  /** Default auto: runs when both sides have AUTO_RUNS_MIN runs, otherwise requests. */
  resample?: ResampleChoice;
  /** Bootstrap iterations (default 2,000). */
  iterations?: number;
  /** Bootstrap seed (default 1): the same query and data give the same intervals. */
  seed?: number;
  /**
   * Confidence level of every interval (default 0.95). A caller that judges several rows at once
   * raises it (Bonferroni: 1 - alpha / rows) so that the rows together err at most alpha.
   */
  confidence?: number;
}

// prettier-ignore
export const DEFAULT_COMPARISON_METRICS: readonly MetricName[] = [
  'itl', 'tpot', 'ttft', 'e2e', 'output_tokens_per_s', 'requests_per_s', 'error_rate',
];
export const DEFAULT_COMPARISON_STATISTICS: readonly Statistic[] = ['p50', 'p90', 'p99'];
export const DEFAULT_ITERATIONS = 2_000;
export const DEFAULT_CONFIDENCE = 0.95;

/** The bounds of a comparison request, which the API's DTO declares too: checked here and there alike. */
export const COMPARISON_LIMITS = {
  /** Run ids one side may name. */
  runIds: 1_000,
  /** Endpoints and profiles one side may name. */
  endpointIds: 20,
  profileIds: 20,
  /** Values one serving-configuration field of a side may list. */
  configValues: 20,
  iterations: { min: 100, max: 10_000 },
  seed: { min: 0, max: 2 ** 31 - 1 },
} as const;

/** One (metric, statistic) a comparison answers, with the threshold it is judged against. */
export interface ComparedRow {
  metric: MetricName;
  statistic: Statistic;
  threshold: ComparisonThreshold;
}

/** A query once checked: every default filled in, each side a run selection. */
export interface CheckedComparison {
  rows: ComparedRow[];
  thresholds: Thresholds;
  iterations: number;
  seed: number;
  confidence: number;
  resample: ResampleChoice;
  baseline: RunSelection;
  candidate: RunSelection;
  /** The run ids each side named, to say which of them matched nothing. */
  named: { baseline?: string[]; candidate?: string[] };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALL_TIME = { from: new Date(0), to: new Date('9999-01-01T00:00:00Z') };

/** Checks a comparison query once, before anything is read; throws AnalysisInputError naming the parameter. */
export function checkComparisonQuery(query: ComparisonQuery): CheckedComparison {
  const rows = checkedRows(query);
  const { iterations: bounds, seed: seeds } = COMPARISON_LIMITS;
  const iterations = query.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < bounds.min || iterations > bounds.max)
    throw new AnalysisInputError('iterations', `must be an integer from ${bounds.min} to ${bounds.max}`);
  const seed = query.seed ?? 1;
  if (!Number.isInteger(seed) || seed < seeds.min || seed > seeds.max)
    throw new AnalysisInputError('seed', `must be an integer from ${seeds.min} to ${seeds.max}`);
  const confidence = query.confidence ?? DEFAULT_CONFIDENCE;
  if (typeof confidence !== 'number' || !(confidence >= 0.5 && confidence < 1))
    throw new AnalysisInputError('confidence', 'must be a number from 0.5 to below 1');
  const resample = query.resample ?? 'auto';
  if (!(RESAMPLE_CHOICES as readonly string[]).includes(resample))
    throw new AnalysisInputError('resample', `must be one of ${RESAMPLE_CHOICES.join(', ')}`);
  return {
    rows,
    thresholds: query.thresholds ?? {},
    iterations,
    seed,
    confidence,
    resample,
    baseline: selectionOf(query.baseline, 'baseline'),
    candidate: selectionOf(query.candidate, 'candidate'),
    named: { baseline: query.baseline.runIds, candidate: query.candidate.runIds },
  };
}

/** The (metric, statistic) rows a query asks for, with their thresholds; throws naming the parameter. */
function checkedRows(query: ComparisonQuery): ComparedRow[] {
  const metrics = query.metrics ?? DEFAULT_COMPARISON_METRICS;
  if (!Array.isArray(metrics) || metrics.length === 0)
    throw new AnalysisInputError('metrics', 'must name at least one metric');
  const statistics = query.statistics ?? DEFAULT_COMPARISON_STATISTICS;
  if (!Array.isArray(statistics) || statistics.length === 0)
    throw new AnalysisInputError('statistics', 'must name at least one statistic');
  for (const statistic of statistics) {
    if (!(STATISTICS as readonly string[]).includes(statistic))
      throw new AnalysisInputError('statistics', `${statistic} is not one of ${STATISTICS.join(', ')}`);
  }
  const thresholds = checkThresholds(query.thresholds ?? {}, 'thresholds');
  const rows: ComparedRow[] = [];
  for (const metric of new Set(metrics)) {
    if (!isMetricName(metric))
      throw new AnalysisInputError('metrics', `${metric} is not one of ${Object.keys(METRICS).join(', ')}`);
    const definition: MetricDefinition = METRICS[metric];
    if (definition.kind === 'diagnostic')
      throw new AnalysisInputError(
        'metrics',
        `${metric} is a diagnostic: comparisons explain with diagnostics (explanations) rather than judge them`,
      );
    if (definition.kind === 'distribution' && !definition.histogram)
      throw new AnalysisInputError(
        'metrics',
        `${metric} keeps no histogram over runs, so it has no comparison`,
      );
    const offered = definition.kind === 'rate' ? (['mean'] as Statistic[]) : definition.statistics;
    const wanted =
      definition.kind === 'rate'
        ? offered
        : [...new Set(statistics)].filter((s): s is Statistic => (offered as readonly string[]).includes(s));
    for (const statistic of wanted)
      rows.push({ metric, statistic, threshold: thresholdOf(metric, statistic, thresholds, []).threshold });
  }
  for (const key of Object.keys(thresholds)) {
    const [metric, statistic] = key.split('.', 2).length === 2 ? splitKey(key) : [key, undefined];
    if (
      !rows.some((row) => row.metric === metric && (statistic === undefined || row.statistic === statistic))
    )
      throw new AnalysisInputError(
        `thresholds.${key}`,
        'names no metric (or metric.statistic) being compared',
      );
  }
  if (rows.length === 0)
    throw new AnalysisInputError('statistics', 'none of them is offered by the metrics asked for');
  return rows;
}

/** "itl.p99.9" is metric itl, statistic p99.9: split at the first dot only. */
function splitKey(key: string): [string, string] {
  const dot = key.indexOf('.');
  return [key.slice(0, dot), key.slice(dot + 1)];
}

/** A side as a run selection: run ids need no window (all time), a window needs its start. */
function selectionOf(side: ComparisonSide, name: 'baseline' | 'candidate'): RunSelection {
  if (!side || typeof side !== 'object') throw new AnalysisInputError(name, 'must be an object');
  for (const field of ['runIds', 'endpointIds', 'profileIds'] as const) {
    const ids = side[field];
    if (ids === undefined) continue;
    if (!Array.isArray(ids) || ids.length === 0)
      throw new AnalysisInputError(`${name}.${field}`, 'must list at least one id');
    if (ids.length > COMPARISON_LIMITS[field])
      throw new AnalysisInputError(`${name}.${field}`, `may list at most ${COMPARISON_LIMITS[field]} ids`);
    if (!ids.every((id) => typeof id === 'string' && UUID.test(id)))
      throw new AnalysisInputError(`${name}.${field}`, 'must be UUIDs');
  }
  if (side.config !== undefined) {
    if (!side.config || typeof side.config !== 'object' || Array.isArray(side.config))
      throw new AnalysisInputError(`${name}.config`, 'must be an object of field to values');
    const most = COMPARISON_LIMITS.configValues;
    for (const [field, values] of Object.entries(side.config)) {
      if (!Object.prototype.hasOwnProperty.call(SERVING_CONFIG_FIELDS, field))
        throw new AnalysisInputError(`${name}.config.${field}`, 'is not a serving-configuration field');
      if (!Array.isArray(values) || values.length === 0 || values.length > most)
        throw new AnalysisInputError(`${name}.config.${field}`, `must be an array of 1 to ${most} values`);
    }
  }
  if (!side.runIds && !side.from)
    throw new AnalysisInputError(`${name}.from`, 'is required unless runIds name the runs');
  const selection: RunSelection = {
    ...side,
    from: side.from ?? ALL_TIME.from,
    to: side.to ?? (side.from ? new Date() : ALL_TIME.to),
  };
  try {
    checkSelection(selection);
  } catch (error) {
    if (error instanceof AnalysisInputError) {
      const isConfigField = Object.prototype.hasOwnProperty.call(SERVING_CONFIG_FIELDS, error.parameter);
      const parameter = isConfigField ? `config.${error.parameter}` : error.parameter;
      throw new AnalysisInputError(`${name}.${parameter}`, error.problem);
    }
    throw error;
  }
  return selection;
}
