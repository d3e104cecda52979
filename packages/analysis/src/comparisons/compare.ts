import {
  isMetricName,
  METRICS,
  STATISTICS,
  STATISTIC_QUANTILES,
  type Direction,
  type MetricDefinition,
  type MetricName,
  type Statistic,
  type Weighting,
} from '@teapot/contracts';
import { poolOf, readMeasuredRequests, type RunStore } from '@teapot/db';
import { percentile, requestMetrics, type RunSummary } from '@teapot/measure';
import {
  LatencyHistogram,
  SparseHistogram,
  bootstrapDeltas,
  bootstrapRatioDelta,
  mannWhitneyU,
  type BootstrapDeltaResult,
  type PooledSample,
  type RateTotals,
  type PooledStatistic as BootstrapStatistic,
} from '@teapot/stats';
import { AnalysisInputError } from '../errors';
import {
  checkSelection,
  selectRuns,
  SERVING_CONFIG_FIELD_NAMES,
  SERVING_CONFIG_FIELDS,
  type ConfigValue,
  type RunSelection,
  type SelectedRun,
  type ServingConfigField,
} from '../selection';
import { histogramStatistic } from '../trend';
import {
  checkThresholds,
  readProfileThresholds,
  thresholdOf,
  type ComparisonThreshold,
  type Thresholds,
} from './thresholds';
import { overallVerdictOf, verdictOf, type Verdict } from './verdict';
import { itlDistributions, type ComparisonDistributions } from './distribution';
import { sideRoofline, type SideRoofline } from './roofline';
import { matchWorkloads, type WorkloadMatch } from './workload';

/**
 * One side of a comparison: a set of run ids, a time window, a configuration filter, or any mix
 * (every field narrows). Without runIds the window start `from` is required; `to` defaults to now.
 */
export type ComparisonSide = Omit<RunSelection, 'from' | 'to'> & { from?: Date; to?: Date };

/** How the bootstrap draws: whole runs, or requests (each with all its tokens) from the side's runs. */
export type ResampleUnit = 'runs' | 'requests';
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

export const DEFAULT_COMPARISON_METRICS: readonly MetricName[] = [
  'itl',
  'tpot',
  'ttft',
  'e2e',
  'output_tokens_per_s',
  'requests_per_s',
  'error_rate',
];
export const DEFAULT_COMPARISON_STATISTICS: readonly Statistic[] = ['p50', 'p90', 'p99'];
export const DEFAULT_ITERATIONS = 2_000;
export const MAX_ITERATIONS = 10_000;
/** Each side reads at most this many runs (histograms and summaries). */
export const MAX_COMPARISON_RUNS = 2_000;
/** Values one serving-configuration field of a side may list. */
const MAX_CONFIG_VALUES = 20;
/** Run ids one side may name. */
export const MAX_SIDE_RUN_IDS = 1_000;
/** Resampling requests reads raw timings: at most this many successful requests per side. */
export const MAX_RAW_REQUESTS = 20_000;
/** With auto, runs are resampled once both sides have this many runs. */
export const AUTO_RUNS_MIN = 10;
/** Fewer runs than this on a side give no interval when runs are resampled. */
export const MIN_RUNS = 3;
/** A quantile q needs this many samples above it on each side (p99: 1,000 samples; p50 and mean: 20). */
export const MIN_TAIL_SAMPLES = 10;
export const DEFAULT_CONFIDENCE = 0.95;

export interface ComparisonSideSummary {
  runs: number;
  runIds: string[];
  /** Named run ids that are not measured runs of the side (unknown, unfinished, filtered or saturated). */
  unmatchedRunIds: string[];
  /** Client-saturated runs the side matched but left out. */
  excludedSaturatedRuns: number;
  requests: number;
  tokens: number;
  firstRunAt: Date | null;
  lastRunAt: Date | null;
  endpointIds: string[];
  profileIds: string[];
  configVersions: Array<{ endpointId: string; version: number | null }>;
  /** The distinct values of each set serving-configuration field over the side's runs. */
  servingConfig: Partial<Record<ServingConfigField, ConfigValue[]>>;
}

export interface MetricComparison {
  metric: MetricName;
  statistic: Statistic;
  unit: string;
  weighting: Weighting;
  direction: Direction;
  /** Null when the side holds no sample of the metric. */
  baseline: number | null;
  candidate: number | null;
  delta: number | null;
  relativeDelta: number | null;
  /** 95% bootstrap interval of delta and of relativeDelta; null when the data is too little. */
  ci: [number, number] | null;
  relativeCi: [number, number] | null;
  /** What the bootstrap redrew. */
  resample: ResampleUnit;
  /** Samples each side's value is over (tokens, requests, or runs for rates). */
  samples: { baseline: number; candidate: number };
  /** Two-sided Mann-Whitney U p-value, and what its samples were; null when it does not apply. */
  pValue: number | null;
  pValueOver: 'runs' | 'requests' | null;
  threshold: ComparisonThreshold;
  verdict: Verdict;
  /** Why there is no interval (too little data on a side); such a row does not count in the overall verdict. */
  insufficient?: string;
}

export interface Comparison {
  baseline: ComparisonSideSummary;
  candidate: ComparisonSideSummary;
  resampling: { unit: ResampleUnit; why: string };
  iterations: number;
  seed: number;
  confidence: number;
  /**
   * The memory-bound TPOT floor of each side (weight bytes / HBM bandwidth) and the fraction of it
   * the side's P50 TPOT achieves: whether a regression is the engine's or physics'. Null without runs.
   */
  roofline: { baseline: SideRoofline; candidate: SideRoofline } | null;
  /** Whether both sides ran the same workload (profile snapshot); if not the comparison is not like with like. */
  workload: WorkloadMatch;
  /** Serving-configuration fields whose values differ between the sides. */
  configDifferences: Array<{ field: ServingConfigField; baseline: ConfigValue[]; candidate: ConfigValue[] }>;
  metrics: MetricComparison[];
  /** Over the rows with enough data: one regression makes it regressed. */
  verdict: Verdict;
  /** Things a reader must know to trust the verdict (workload differs, shared runs, fallbacks). */
  notes: string[];
  /** Why there are no metric rows, when there are none. */
  reason?: string;
  /** Each side's ITL distribution (CDF points from its merged stored histograms); null without runs. */
  distributions: ComparisonDistributions | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALL_TIME = { from: new Date(0), to: new Date('9999-01-01T00:00:00Z') };

interface Row {
  metric: MetricName;
  statistic: Statistic;
  threshold: ComparisonThreshold;
}

/**
 * Compares a baseline and a candidate set of runs: per metric and statistic both values, the change,
 * its bootstrap interval, a rank-test p-value and a verdict against the threshold, knowing the
 * metric's direction. Seeded and bounded; bad input is an AnalysisInputError naming the parameter.
 */
export async function compare(db: RunStore, query: ComparisonQuery): Promise<Comparison> {
  const rows = checkedRows(query);
  const iterations = query.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 100 || iterations > MAX_ITERATIONS)
    throw new AnalysisInputError('iterations', `must be an integer from 100 to ${MAX_ITERATIONS}`);
  const seed = query.seed ?? 1;
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new AnalysisInputError('seed', 'must be an integer >= 0');
  const confidence = query.confidence ?? DEFAULT_CONFIDENCE;
  if (typeof confidence !== 'number' || !(confidence >= 0.5 && confidence < 1))
    throw new AnalysisInputError('confidence', 'must be a number from 0.5 to below 1');
  const choice = query.resample ?? 'auto';
  if (!(RESAMPLE_CHOICES as readonly string[]).includes(choice))
    throw new AnalysisInputError('resample', `must be one of ${RESAMPLE_CHOICES.join(', ')}`);

  const baselineSelection = selectionOf(query.baseline, 'baseline');
  const candidateSelection = selectionOf(query.candidate, 'candidate');
  const baseline = await selectSide(db, baselineSelection, 'baseline');
  const candidate = await selectSide(db, candidateSelection, 'candidate');
  const summaries = {
    baseline: sideSummary(baseline.runs, baseline.excludedSaturated, query.baseline.runIds),
    candidate: sideSummary(candidate.runs, candidate.excludedSaturated, query.candidate.runIds),
  };
  const notes: string[] = [];
  const empty = (reason: string): Comparison => ({
    ...summariesOnly(summaries, iterations, seed, confidence),
    workload: { same: true, differences: [] },
    roofline: null,
    configDifferences: configDifferences(summaries.baseline, summaries.candidate),
    metrics: [],
    verdict: 'inconclusive',
    notes,
    reason,
    distributions: null,
  });
  for (const side of ['baseline', 'candidate'] as const) {
    const { runs, excludedSaturated } = side === 'baseline' ? baseline : candidate;
    if (excludedSaturated > 0)
      notes.push(
        `${side}: ${excludedSaturated} client-saturated runs left out (includeSaturated to keep them)`,
      );
    if (summaries[side].unmatchedRunIds.length > 0)
      notes.push(`${side}: ${summaries[side].unmatchedRunIds.length} named runs are not measured runs of it`);
    if (runs.length === 0) return empty(`${side}: no measured run matches`);
  }
  const shared = baseline.runs.filter((run) => candidate.runs.some((other) => other.id === run.id)).length;
  if (shared > 0) notes.push(`${shared} runs are on both sides: the sides are not independent`);
  await resolveThresholds(db, rows, query.thresholds ?? {}, [...baseline.runs, ...candidate.runs], notes);

  const details = {
    baseline: await runDetails(db, baseline.runs),
    candidate: await runDetails(db, candidate.runs),
  };
  const workload = matchWorkloads(
    baseline.runs.map((run) => details.baseline.get(run.id)?.snapshot),
    candidate.runs.map((run) => details.candidate.get(run.id)?.snapshot),
  );
  if (!workload.same)
    notes.push(
      `the workloads differ (${workload.differences.map((d) => d.field).join(', ')}): not like with like`,
    );

  const unit = resampleUnit(choice, baseline.runs, candidate.runs);
  if (unit.note) notes.push(unit.note);
  const distributions = new Map<MetricName, Row[]>();
  const rates: Row[] = [];
  for (const row of rows) {
    if (METRICS[row.metric].kind === 'rate') rates.push(row);
    else distributions.set(row.metric, [...(distributions.get(row.metric) ?? []), row]);
  }
  const results: MetricComparison[] = [];
  if (distributions.size > 0) {
    const metrics = [...distributions.keys()];
    const samples =
      unit.unit === 'runs'
        ? {
            baseline: await runHistograms(db, baseline.runs, metrics),
            candidate: await runHistograms(db, candidate.runs, metrics),
          }
        : {
            baseline: await requestSamples(db, baseline.runs, metrics),
            candidate: await requestSamples(db, candidate.runs, metrics),
          };
    for (const side of ['baseline', 'candidate'] as const) {
      if (samples[side].rawDropped > 0)
        notes.push(
          `${side}: ${samples[side].rawDropped} requests left out whose raw timings retention dropped`,
        );
    }
    for (const [metric, metricRows] of distributions) {
      results.push(
        ...compareDistribution(metric, metricRows, samples.baseline, samples.candidate, unit.unit, {
          iterations,
          seed: seedOf(seed, metric),
          confidence,
        }),
      );
    }
  }
  for (const row of rates) {
    results.push(
      compareRate(row, baseline.runs, candidate.runs, details, {
        iterations,
        seed: seedOf(seed, row.metric),
        confidence,
      }),
    );
  }
  const order = new Map(rows.map((row, i) => [`${row.metric}.${row.statistic}`, i]));
  results.sort((a, b) => order.get(`${a.metric}.${a.statistic}`)! - order.get(`${b.metric}.${b.statistic}`)!);
  const judged = results.filter((row) => !row.insufficient).map((row) => row.verdict);
  return {
    ...summariesOnly(summaries, iterations, seed, confidence),
    resampling: { unit: unit.unit, why: unit.why },
    roofline: await rooflines(db, {
      baseline: { runs: baseline.runs, details: details.baseline },
      candidate: { runs: candidate.runs, details: details.candidate },
    }),
    workload,
    configDifferences: configDifferences(summaries.baseline, summaries.candidate),
    metrics: results,
    verdict: overallVerdictOf(judged),
    notes,
    distributions: await itlDistributions(db, {
      baseline: baseline.runs.map((run) => run.id),
      candidate: candidate.runs.map((run) => run.id),
    }),
  };
}

function summariesOnly(
  summaries: { baseline: ComparisonSideSummary; candidate: ComparisonSideSummary },
  iterations: number,
  seed: number,
  confidence: number,
): Pick<Comparison, 'baseline' | 'candidate' | 'resampling' | 'iterations' | 'seed' | 'confidence'> {
  return {
    ...summaries,
    resampling: { unit: 'runs', why: 'nothing was resampled' },
    iterations,
    seed,
    confidence,
  };
}

/** The (metric, statistic) rows a query asks for, with their thresholds; throws naming the parameter. */
function checkedRows(query: ComparisonQuery): Row[] {
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
  const rows: Row[] = [];
  for (const metric of new Set(metrics)) {
    if (!isMetricName(metric))
      throw new AnalysisInputError('metrics', `${metric} is not one of ${Object.keys(METRICS).join(', ')}`);
    const definition: MetricDefinition = METRICS[metric];
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

/**
 * Rows the request sets no threshold for take the one the compared runs' profiles set (the strictest
 * when they differ, said in a note), else keep the default: request > profile > default.
 */
async function resolveThresholds(
  db: RunStore,
  rows: Row[],
  request: Thresholds,
  runs: SelectedRun[],
  notes: string[],
): Promise<void> {
  const profileIds = [...new Set(runs.map((run) => run.profileId).filter((id): id is string => id !== null))];
  const profiles = await readProfileThresholds(db, profileIds);
  if (profiles.length === 0) return;
  for (const row of rows) {
    const { threshold, conflict } = thresholdOf(row.metric, row.statistic, request, profiles);
    row.threshold = threshold;
    if (conflict)
      notes.push(
        `the profiles set different thresholds for ${row.metric}.${row.statistic} (${conflict.join(', ')}): the strictest, ${threshold.value}, applies`,
      );
  }
}

/** A side as a run selection: run ids need no window (all time), a window needs its start. */
function selectionOf(side: ComparisonSide, name: 'baseline' | 'candidate'): RunSelection {
  if (!side || typeof side !== 'object') throw new AnalysisInputError(name, 'must be an object');
  for (const field of ['runIds', 'endpointIds', 'profileIds'] as const) {
    const ids = side[field];
    if (ids === undefined) continue;
    if (!Array.isArray(ids) || ids.length === 0)
      throw new AnalysisInputError(`${name}.${field}`, 'must list at least one id');
    if (ids.length > MAX_SIDE_RUN_IDS)
      throw new AnalysisInputError(`${name}.${field}`, `may list at most ${MAX_SIDE_RUN_IDS} ids`);
    if (!ids.every((id) => typeof id === 'string' && UUID.test(id)))
      throw new AnalysisInputError(`${name}.${field}`, 'must be UUIDs');
  }
  if (side.config !== undefined) {
    if (!side.config || typeof side.config !== 'object' || Array.isArray(side.config))
      throw new AnalysisInputError(`${name}.config`, 'must be an object of field to values');
    for (const [field, values] of Object.entries(side.config)) {
      if (!Object.prototype.hasOwnProperty.call(SERVING_CONFIG_FIELDS, field))
        throw new AnalysisInputError(`${name}.config.${field}`, 'is not a serving-configuration field');
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_CONFIG_VALUES)
        throw new AnalysisInputError(
          `${name}.config.${field}`,
          `must be an array of 1 to ${MAX_CONFIG_VALUES} values`,
        );
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

async function selectSide(
  db: RunStore,
  selection: RunSelection,
  name: 'baseline' | 'candidate',
): Promise<{ runs: SelectedRun[]; excludedSaturated: number }> {
  let selected;
  try {
    selected = await selectRuns(db, selection);
  } catch (error) {
    if (error instanceof AnalysisInputError)
      throw new AnalysisInputError(`${name}.${error.parameter}`, error.problem);
    throw error;
  }
  if (selected.runs.length > MAX_COMPARISON_RUNS)
    throw new AnalysisInputError(
      `${name}.from`,
      `selects ${selected.runs.length} runs, more than ${MAX_COMPARISON_RUNS}: narrow the window or the filters`,
    );
  return selected;
}

function sideSummary(
  runs: SelectedRun[],
  excludedSaturated: number,
  named?: string[],
): ComparisonSideSummary {
  const ids = new Set(runs.map((run) => run.id));
  const versions = new Map<string, { endpointId: string; version: number | null }>();
  for (const run of runs)
    versions.set(`${run.endpointId}:${run.configVersion}`, {
      endpointId: run.endpointId,
      version: run.configVersion,
    });
  const servingConfig: ComparisonSideSummary['servingConfig'] = {};
  for (const field of SERVING_CONFIG_FIELD_NAMES) {
    const values = [...new Set(runs.map((run) => run.config[field]))];
    if (values.some((value) => value !== null)) servingConfig[field] = values;
  }
  return {
    runs: runs.length,
    runIds: runs.map((run) => run.id),
    unmatchedRunIds: [...new Set(named ?? [])].filter((id) => !ids.has(id.toLowerCase())),
    excludedSaturatedRuns: excludedSaturated,
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    tokens: runs.reduce((sum, run) => sum + run.tokens, 0),
    firstRunAt: runs[0]?.startedAt ?? null,
    lastRunAt: runs.at(-1)?.startedAt ?? null,
    endpointIds: [...new Set(runs.map((run) => run.endpointId))],
    profileIds: [...new Set(runs.map((run) => run.profileId).filter((id): id is string => id !== null))],
    configVersions: [...versions.values()],
    servingConfig,
  };
}

function configDifferences(
  baseline: ComparisonSideSummary,
  candidate: ComparisonSideSummary,
): Comparison['configDifferences'] {
  const differences: Comparison['configDifferences'] = [];
  for (const field of SERVING_CONFIG_FIELD_NAMES) {
    const a = baseline.servingConfig[field] ?? [null];
    const b = candidate.servingConfig[field] ?? [null];
    const same = a.length === b.length && a.every((value) => b.includes(value));
    if (!same) differences.push({ field, baseline: a, candidate: b });
  }
  return differences;
}

interface RunDetail {
  snapshot: unknown;
  summary: RunSummary | null;
  /** The endpoint's served model and the configuration's extra, for the roofline floor. */
  model: string;
  extra: unknown;
}

async function runDetails(db: RunStore, runs: SelectedRun[]): Promise<Map<string, RunDetail>> {
  const { rows } = await poolOf(db).query<{
    id: string;
    profile_snapshot: unknown;
    summary: RunSummary | null;
    model: string;
    extra: unknown;
  }>(
    `SELECT r.id, r.profile_snapshot, r.summary, e.model, c.extra
       FROM runs r JOIN endpoints e ON e.id = r.endpoint_id LEFT JOIN serving_configs c ON c.id = r.config_id
      WHERE r.id = ANY($1::uuid[])`,
    [runs.map((run) => run.id)],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      { snapshot: row.profile_snapshot, summary: row.summary, model: row.model, extra: row.extra },
    ]),
  );
}

/** Each side's memory-bound TPOT floor and the fraction of it its P50 TPOT (over all requests) achieves. */
async function rooflines(
  db: RunStore,
  sides: Record<'baseline' | 'candidate', { runs: SelectedRun[]; details: Map<string, RunDetail> }>,
): Promise<Comparison['roofline']> {
  const of = async ({ runs, details }: { runs: SelectedRun[]; details: Map<string, RunDetail> }) => {
    const merged = (await runHistograms(db, runs, ['tpot'])).merged.get('tpot')!;
    return sideRoofline(
      runs.map((run) => ({
        model: details.get(run.id)?.model ?? '',
        extra: details.get(run.id)?.extra,
        config: run.config,
      })),
      histogramStatistic(merged, 'p50'),
    );
  };
  return { baseline: await of(sides.baseline), candidate: await of(sides.candidate) };
}

function resampleUnit(
  choice: ResampleChoice,
  baseline: SelectedRun[],
  candidate: SelectedRun[],
): { unit: ResampleUnit; why: string; note?: string } {
  const fewest = Math.min(baseline.length, candidate.length);
  const rawRequests = Math.max(
    ...[baseline, candidate].map((runs) => runs.reduce((n, run) => n + run.requests, 0)),
  );
  if (choice === 'requests' && rawRequests > MAX_RAW_REQUESTS)
    throw new AnalysisInputError(
      'resample',
      `requests reads raw timings of at most ${MAX_RAW_REQUESTS} requests a side; a side has ${rawRequests}: use runs`,
    );
  const byRuns =
    'runs are the independent units (tokens and requests of one run share the server state, batch and ' +
    'neighbours), so whole runs are redrawn and the interval includes the run-to-run spread';
  const byRequests =
    "the side's runs are redrawn with replacement, then each drawn run's requests (each with all its " +
    'tokens, which are not independent of each other): with few runs the interval keeps what it can of ' +
    'the run-to-run spread, which redrawing whole runs alone would estimate from too few resamples';
  if (choice === 'runs') return { unit: 'runs', why: `asked for: ${byRuns}` };
  if (choice === 'requests') return { unit: 'requests', why: `asked for: ${byRequests}` };
  if (fewest >= AUTO_RUNS_MIN)
    return { unit: 'runs', why: `both sides have >= ${AUTO_RUNS_MIN} runs: ${byRuns}` };
  if (rawRequests > MAX_RAW_REQUESTS)
    return {
      unit: 'runs',
      why: `a side has more than ${MAX_RAW_REQUESTS} requests to read raw: ${byRuns}`,
      note: `a side has fewer than ${AUTO_RUNS_MIN} runs but too many requests to resample raw: runs are resampled`,
    };
  return {
    unit: 'requests',
    why: `a side has fewer than ${AUTO_RUNS_MIN} runs, too few to redraw runs: ${byRequests}`,
  };
}

/** Per metric, one entry per bootstrap unit (a run, or a request), and the rank-test samples. */
interface DistributionSamples {
  units: Map<MetricName, Array<LatencyHistogram | SparseHistogram>>;
  /** Per metric, every sample of the side in one histogram (the value's estimate). */
  merged: Map<MetricName, LatencyHistogram>;
  /** requests: per metric, the run (its index on the side) each unit came from. */
  runOfUnit: Map<MetricName, number[]>;
  /** requests: per-request values (us) of request-weighted metrics; per-request token lists for ITL. */
  perRequest: Map<MetricName, Float64Array[]>;
  rawDropped: number;
}

async function runHistograms(
  db: RunStore,
  runs: SelectedRun[],
  metrics: MetricName[],
): Promise<DistributionSamples> {
  const units = new Map<MetricName, LatencyHistogram[]>(metrics.map((metric) => [metric, []]));
  const merged = new Map(metrics.map((metric) => [metric, new LatencyHistogram()]));
  const { rows } = await poolOf(db).query<{ run_id: string; metric: MetricName; encoded: Buffer }>(
    `SELECT run_id, metric, encoded FROM run_histograms
      WHERE run_id = ANY($1::uuid[]) AND metric = ANY($2) AND count > 0 ORDER BY run_id, metric`,
    [runs.map((run) => run.id), metrics],
  );
  for (const row of rows) {
    const histogram = LatencyHistogram.decode(row.encoded);
    units.get(row.metric)?.push(histogram);
    merged.get(row.metric)?.merge(histogram);
  }
  return { units, merged, runOfUnit: new Map(), perRequest: new Map(), rawDropped: 0 };
}

async function requestSamples(
  db: RunStore,
  runs: SelectedRun[],
  metrics: MetricName[],
): Promise<DistributionSamples> {
  const { byRun, rawDropped } = await readMeasuredRequests(
    db,
    runs.map((run) => run.id),
  );
  const units = new Map<MetricName, SparseHistogram[]>(metrics.map((metric) => [metric, []]));
  const merged = new Map(metrics.map((metric) => [metric, new LatencyHistogram()]));
  const perRequest = new Map<MetricName, Float64Array[]>(metrics.map((metric) => [metric, []]));
  const runOfUnit = new Map<MetricName, number[]>(metrics.map((metric) => [metric, []]));
  for (const [r, run] of runs.entries()) {
    for (const record of byRun.get(run.id) ?? []) {
      const measured = requestMetrics(record);
      for (const metric of metrics) {
        const definition = METRICS[metric] as MetricDefinition;
        if (definition.kind !== 'distribution') continue;
        const value = measured[definition.requestKey];
        const values = typeof value === 'number' ? Float64Array.of(value) : value;
        if (values === null || values.length === 0) continue;
        units.get(metric)!.push(SparseHistogram.of(values));
        runOfUnit.get(metric)!.push(r);
        merged.get(metric)!.recordAll(values);
        perRequest.get(metric)!.push(values);
      }
    }
  }
  return { units, merged, runOfUnit, perRequest, rawDropped };
}

/** The statistic as the bootstrap computes it on a pooled side (us, or a ratio). */
function bootstrapStatistic(statistic: Statistic): BootstrapStatistic {
  if (statistic === 'p99/p50') return (pooled: PooledSample) => pooled.quantile(0.99) / pooled.quantile(0.5);
  return statistic;
}

/** The statistic of one unit's own samples (a run's histogram, or a request's values), for the rank test. */
function unitStatistic(values: Float64Array, statistic: Statistic): number | null {
  if (values.length === 0) return null;
  if (statistic === 'mean') return values.reduce((sum, v) => sum + v, 0) / values.length;
  const sorted = Float64Array.from(values).sort();
  if (statistic === 'p99/p50') {
    const p50 = percentile(sorted, 0.5);
    return p50 > 0 ? percentile(sorted, 0.99) / p50 : null;
  }
  return percentile(sorted, STATISTIC_QUANTILES[statistic] as number);
}

/** Samples a statistic needs on a side: MIN_TAIL_SAMPLES beyond its quantile (p99: 1,000; p50 and mean: 20). */
function samplesNeeded(statistic: Statistic): number {
  const q = statistic === 'p99/p50' ? 0.99 : (STATISTIC_QUANTILES[statistic] ?? 0.5);
  return Math.ceil(MIN_TAIL_SAMPLES / (1 - Math.max(q, 0.5)));
}

function compareDistribution(
  metric: MetricName,
  rows: Row[],
  baseline: DistributionSamples,
  candidate: DistributionSamples,
  unit: ResampleUnit,
  options: { iterations: number; seed: number; confidence: number },
): MetricComparison[] {
  const definition = METRICS[metric] as MetricDefinition;
  const sides = { baseline: baseline.units.get(metric) ?? [], candidate: candidate.units.get(metric) ?? [] };
  const counts = {
    baseline: sides.baseline.reduce((n, h) => n + h.count, 0),
    candidate: sides.candidate.reduce((n, h) => n + h.count, 0),
  };
  const merged = {
    baseline: baseline.merged.get(metric) ?? new LatencyHistogram(),
    candidate: candidate.merged.get(metric) ?? new LatencyHistogram(),
  };
  const scale = (statistic: Statistic) => (statistic === 'p99/p50' ? 1 : 1 / 1000);
  const insufficientOf = (statistic: Statistic): string | undefined => {
    const what = unit === 'runs' ? 'runs with samples' : 'samples';
    for (const side of ['baseline', 'candidate'] as const) {
      if (counts[side] === 0) return `${side} holds no ${metric} sample`;
      if (unit === 'runs' && sides[side].length < MIN_RUNS)
        return `${side} has ${sides[side].length} ${what}: resampling runs needs at least ${MIN_RUNS}`;
      const needed = samplesNeeded(statistic);
      if (counts[side] < needed)
        return `${side} has ${counts[side]} ${definition.weighting}s: ${statistic} needs at least ${needed}`;
    }
    return undefined;
  };
  const judged = rows.filter((row) => !insufficientOf(row.statistic));
  const intervals = new Map<Statistic, BootstrapDeltaResult>();
  if (judged.length > 0) {
    const results = bootstrapDeltas({
      baseline: sides.baseline,
      candidate: sides.candidate,
      statistics: judged.map((row) => bootstrapStatistic(row.statistic)),
      resample: 'runs',
      // Requests are drawn within runs drawn first, so the interval keeps the spread between runs.
      ...(unit === 'requests'
        ? {
            groups: {
              baseline: baseline.runOfUnit.get(metric) ?? [],
              candidate: candidate.runOfUnit.get(metric) ?? [],
            },
          }
        : {}),
      iterations: options.iterations,
      confidence: options.confidence,
      seed: options.seed,
    });
    judged.forEach((row, i) => intervals.set(row.statistic, results[i]));
  }
  return rows.map((row): MetricComparison => {
    const { statistic, threshold } = row;
    const k = scale(statistic);
    const b = histogramStatistic(merged.baseline, statistic);
    const c = histogramStatistic(merged.candidate, statistic);
    const interval = intervals.get(statistic);
    const insufficient = insufficientOf(statistic);
    const base = {
      metric,
      statistic,
      unit: statistic === 'p99/p50' ? 'ratio' : definition.unit,
      weighting: definition.weighting,
      direction: definition.direction,
      ...sidesAndChange(b, c),
      resample: unit,
      samples: counts,
      threshold,
    };
    if (!interval || insufficient) return unjudged(base, insufficient);
    const ci: [number, number] = [interval.ci[0] * k, interval.ci[1] * k];
    const rank = rankTest(metric, statistic, unit, sides, baseline, candidate);
    const absolute = threshold.kind === 'absolute';
    return {
      ...base,
      ci,
      relativeCi: interval.relativeCi,
      pValue: rank?.pValue ?? null,
      pValueOver: rank ? unit : null,
      verdict: verdictOf({
        direction: definition.direction,
        change: absolute ? interval.delta * k : interval.relativeDelta,
        changeCi: absolute ? ci : interval.relativeCi,
        threshold: threshold.value,
      }),
    };
  });
}

/**
 * Mann-Whitney U over independent units: per-run values of the statistic when runs are resampled;
 * per-request values when requests are (a TTFT, TPOT or E2E per request, the same test for every
 * statistic; for ITL the statistic over each request's own tokens, since tokens are not independent).
 */
function rankTest(
  metric: MetricName,
  statistic: Statistic,
  unit: ResampleUnit,
  sides: {
    baseline: Array<LatencyHistogram | SparseHistogram>;
    candidate: Array<LatencyHistogram | SparseHistogram>;
  },
  baseline: DistributionSamples,
  candidate: DistributionSamples,
): { pValue: number } | null {
  const valuesOf = (side: 'baseline' | 'candidate'): number[] => {
    if (unit === 'runs') {
      return sides[side]
        .map((h) => (h instanceof LatencyHistogram ? histogramStatistic(h, statistic) : null))
        .filter((v): v is number => v !== null);
    }
    const requests = (side === 'baseline' ? baseline : candidate).perRequest.get(metric) ?? [];
    if (METRICS[metric].weighting === 'request') return requests.map((values) => values[0]);
    return requests.map((values) => unitStatistic(values, statistic)).filter((v): v is number => v !== null);
  };
  const a = valuesOf('baseline');
  const b = valuesOf('candidate');
  if (a.length === 0 || b.length === 0) return null;
  return { pValue: mannWhitneyU(a, b).pValue };
}

function compareRate(
  row: Row,
  baselineRuns: SelectedRun[],
  candidateRuns: SelectedRun[],
  details: { baseline: Map<string, RunDetail>; candidate: Map<string, RunDetail> },
  options: { iterations: number; seed: number; confidence: number },
): MetricComparison {
  const definition = METRICS[row.metric] as MetricDefinition;
  if (definition.kind !== 'rate') throw new Error(`${row.metric} is not a rate`);
  const perSide = (runs: SelectedRun[], detail: Map<string, RunDetail>) => {
    const totals: RateTotals[] = [];
    const perRun: number[] = [];
    for (const run of runs) {
      const summary = detail.get(run.id)?.summary;
      const share = summary ? definition.totals(summary) : null;
      if (!share || !(share.denominator > 0)) continue;
      totals.push(share);
      perRun.push(share.numerator / share.denominator);
    }
    return { totals, perRun };
  };
  const sides = {
    baseline: perSide(baselineRuns, details.baseline),
    candidate: perSide(candidateRuns, details.candidate),
  };
  const pooled = (totals: RateTotals[]) =>
    totals.length === 0
      ? null
      : totals.reduce((n, t) => n + t.numerator, 0) / totals.reduce((d, t) => d + t.denominator, 0);
  const b = pooled(sides.baseline.totals);
  const c = pooled(sides.candidate.totals);
  const base = {
    metric: row.metric,
    statistic: row.statistic,
    unit: definition.unit,
    weighting: definition.weighting,
    direction: definition.direction,
    ...sidesAndChange(b, c),
    resample: 'runs' as const,
    samples: { baseline: sides.baseline.totals.length, candidate: sides.candidate.totals.length },
    threshold: row.threshold,
  };
  let insufficient: string | undefined;
  for (const side of ['baseline', 'candidate'] as const) {
    const n = sides[side].totals.length;
    if (insufficient) break;
    if (n === 0) insufficient = `${side} has no run with a ${row.metric}`;
    else if (n < MIN_RUNS)
      insufficient = `${side} has ${n} runs with a ${row.metric}: a rate's interval needs at least ${MIN_RUNS}`;
  }
  if (insufficient) return unjudged(base, insufficient);
  const interval = bootstrapRatioDelta({
    baseline: sides.baseline.totals,
    candidate: sides.candidate.totals,
    iterations: options.iterations,
    confidence: options.confidence,
    seed: options.seed,
  });
  const absolute = row.threshold.kind === 'absolute';
  const relativeUsable = b !== 0 && interval.relativeCi.every(Number.isFinite);
  return {
    ...base,
    ci: interval.ci,
    relativeCi: relativeUsable ? interval.relativeCi : null,
    pValue: mannWhitneyU(sides.baseline.perRun, sides.candidate.perRun).pValue,
    pValueOver: 'runs',
    verdict: verdictOf({
      direction: definition.direction,
      change: absolute ? interval.delta : interval.relativeDelta,
      changeCi: absolute ? interval.ci : interval.relativeCi,
      threshold: row.threshold.value,
    }),
  };
}

/** A row without an interval: inconclusive, and why. */
/** Both sides' values and the change between them: null without both, relative null from a baseline of 0. */
function sidesAndChange(
  baseline: number | null,
  candidate: number | null,
): Pick<MetricComparison, 'baseline' | 'candidate' | 'delta' | 'relativeDelta'> {
  const both = baseline !== null && candidate !== null;
  return {
    baseline,
    candidate,
    delta: both ? candidate - baseline : null,
    relativeDelta: both && baseline !== 0 ? candidate / baseline - 1 : null,
  };
}

function unjudged(
  base: Omit<MetricComparison, 'ci' | 'relativeCi' | 'pValue' | 'pValueOver' | 'verdict' | 'insufficient'>,
  insufficient: string | undefined,
): MetricComparison {
  return {
    ...base,
    ci: null,
    relativeCi: null,
    pValue: null,
    pValueOver: null,
    verdict: 'inconclusive',
    ...(insufficient ? { insufficient } : {}),
  };
}

/** A per-metric seed, so a row's interval does not depend on which other metrics were asked for. */
function seedOf(seed: number, metric: string): number {
  let hash = 2166136261;
  for (let i = 0; i < metric.length; i++) hash = Math.imul(hash ^ metric.charCodeAt(i), 16777619);
  return (seed ^ hash) >>> 0;
}
