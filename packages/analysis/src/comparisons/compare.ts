import {
  METRICS,
  type DiagnosticChange,
  type Direction,
  type MetricName,
  type Statistic,
  type Weighting,
} from '@teapot/contracts';
import {
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigValue,
  type MeasuredRequests,
  type RunDetail,
  type RunDiagnostics,
  type SelectedRun,
  type ServingConfigField,
  type StoredHistogram,
  type StoredThresholds,
} from '@teapot/db';
import { LatencyHistogram } from '@teapot/stats';
import { histogramStatistic } from '../histogram-statistic';
import {
  requestSamples,
  resamplePlan,
  runSamples,
  type ComparisonResampleUnit,
  type DistributionSamples,
} from './bootstrap-plan';
import type { CheckedComparison, ComparedRow } from './comparison-query';
import { diagnosticChanges } from './diagnostic-changes';
import { itlDistributions, type ComparisonDistributions } from './distribution';
import { NOTES, NOTHING_RESAMPLED } from './explain';
import { compareDistribution, compareRate, seedOf } from './metric-rows';
import { sideRoofline, type SideRoofline } from './roofline';
import { thresholdOf, usableThresholds, type ComparisonThreshold } from './thresholds';
import { overallVerdictOf, type Verdict } from './verdict';
import { matchWorkloads, type WorkloadMatch } from './workload';

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
  resample: ComparisonResampleUnit;
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
  resampling: { unit: ComparisonResampleUnit; why: string };
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
  /** The diagnostics that changed significantly between the sides (diagnostic-changes.ts), what explains the rows. */
  explanations: DiagnosticChange[];
  /** Why there are no metric rows, when there are none. */
  reason?: string;
  /** Each side's ITL distribution (CDF points from its merged stored histograms); null without runs. */
  distributions: ComparisonDistributions | null;
}

/** One side as loaded for a comparison: its runs and what the comparison reads of them. */
export interface LoadedSide {
  runs: SelectedRun[];
  /** Client-saturated runs the side matched but left out. */
  excludedSaturated: number;
  /** Per run id: snapshot, summary and roofline inputs (needed once the side has runs). */
  details: Map<string, RunDetail>;
  /** The side's non-empty stored histograms: TPOT, ITL, and the compared metrics when runs are resampled. */
  histograms: StoredHistogram[];
  /** Raw requests of the side's runs, when requests are resampled. */
  requests?: MeasuredRequests;
  /** Per run id: its stored diagnostics (none loaded: nothing is explained). */
  diagnostics?: Map<string, RunDiagnostics>;
}

/** A checked query without its selections, and the stored thresholds of the compared runs' profiles. */
export type ComparisonOptions = Omit<CheckedComparison, 'baseline' | 'candidate'> & {
  profileThresholds: readonly StoredThresholds[];
};

type Sides<T> = { baseline: T; candidate: T };
const SIDES = ['baseline', 'candidate'] as const;

/**
 * Compares a baseline and a candidate set of loaded runs: per metric and statistic both values, the
 * change, its bootstrap interval, a rank-test p-value and a verdict against the threshold, knowing the
 * metric's direction. Reads nothing; seeded, so the same data and options give the same answer.
 */
export function compare(baseline: LoadedSide, candidate: LoadedSide, options: ComparisonOptions): Comparison {
  const sides: Sides<LoadedSide> = { baseline, candidate };
  const summaries = {
    baseline: sideSummary(baseline, options.named.baseline),
    candidate: sideSummary(candidate, options.named.candidate),
  };
  const head = {
    ...summaries,
    resampling: { unit: 'runs' as const, why: NOTHING_RESAMPLED },
    iterations: options.iterations,
    seed: options.seed,
    confidence: options.confidence,
  };
  const differences = configDifferences(summaries.baseline, summaries.candidate);
  const notes: string[] = [];
  for (const side of SIDES) {
    const { runs, excludedSaturated } = sides[side];
    if (excludedSaturated > 0) notes.push(NOTES.saturated(side, excludedSaturated));
    if (summaries[side].unmatchedRunIds.length > 0)
      notes.push(NOTES.unmatched(side, summaries[side].unmatchedRunIds.length));
    if (runs.length === 0)
      return {
        ...head,
        workload: { same: true, differences: [] },
        roofline: null,
        configDifferences: differences,
        metrics: [],
        verdict: 'inconclusive',
        notes,
        explanations: [],
        reason: NOTES.noRuns(side),
        distributions: null,
      };
  }
  const shared = baseline.runs.filter((run) => candidate.runs.some((other) => other.id === run.id)).length;
  if (shared > 0) notes.push(NOTES.shared(shared));
  const rows = resolveThresholds(options, [...baseline.runs, ...candidate.runs], notes);
  const workload = matchWorkloads(
    baseline.runs.map((run) => baseline.details.get(run.id)?.snapshot),
    candidate.runs.map((run) => candidate.details.get(run.id)?.snapshot),
  );
  if (!workload.same) notes.push(NOTES.workload(workload));

  const plan = resamplePlan(options.resample, baseline.runs, candidate.runs);
  if (plan.note) notes.push(plan.note);
  const results = [
    ...distributionRows(sides, rows, plan.unit, options, notes),
    ...rows
      .filter((row) => METRICS[row.metric].kind === 'rate')
      .map((row) =>
        compareRate(
          row,
          baseline.runs,
          candidate.runs,
          { baseline: baseline.details, candidate: candidate.details },
          {
            iterations: options.iterations,
            seed: seedOf(options.seed, row.metric),
            confidence: options.confidence,
          },
        ),
      ),
  ];
  const order = new Map(rows.map((row, i) => [`${row.metric}.${row.statistic}`, i]));
  results.sort((a, b) => order.get(`${a.metric}.${a.statistic}`)! - order.get(`${b.metric}.${b.statistic}`)!);
  const judged = results.filter((row) => !row.insufficient).map((row) => row.verdict);
  const merged = { baseline: mergedStored(baseline), candidate: mergedStored(candidate) };
  return {
    ...head,
    resampling: { unit: plan.unit, why: plan.why },
    roofline: {
      baseline: roofline(baseline, merged.baseline.tpot),
      candidate: roofline(candidate, merged.candidate.tpot),
    },
    workload,
    configDifferences: differences,
    metrics: results,
    verdict: overallVerdictOf(judged),
    notes,
    explanations: diagnosticChanges(diagnosticsOf(baseline), diagnosticsOf(candidate)),
    distributions: itlDistributions({ baseline: merged.baseline.itl, candidate: merged.candidate.itl }),
  };
}

/** The rows of the distribution metrics, each metric's statistics from the same resamples. */
function distributionRows(
  sides: Sides<LoadedSide>,
  rows: readonly ComparedRow[],
  unit: ComparisonResampleUnit,
  options: ComparisonOptions,
  notes: string[],
): MetricComparison[] {
  const byMetric = new Map<MetricName, ComparedRow[]>();
  for (const row of rows) {
    if (METRICS[row.metric].kind !== 'rate')
      byMetric.set(row.metric, [...(byMetric.get(row.metric) ?? []), row]);
  }
  if (byMetric.size === 0) return [];
  const metrics = [...byMetric.keys()];
  const samplesOf = (side: LoadedSide): DistributionSamples => {
    if (unit === 'runs') return runSamples(side.histograms, metrics);
    if (!side.requests)
      throw new Error('a comparison resampling requests needs the requests of both sides loaded');
    return requestSamples(side.runs, side.requests, metrics);
  };
  const samples = { baseline: samplesOf(sides.baseline), candidate: samplesOf(sides.candidate) };
  for (const side of SIDES) {
    if (samples[side].rawDropped > 0) notes.push(NOTES.rawDropped(side, samples[side].rawDropped));
  }
  return [...byMetric].flatMap(([metric, metricRows]) =>
    compareDistribution(metric, metricRows, samples.baseline, samples.candidate, unit, {
      iterations: options.iterations,
      seed: seedOf(options.seed, metric),
      confidence: options.confidence,
    }),
  );
}

/**
 * Rows the request sets no threshold for take the one the compared runs' profiles set (the strictest
 * when they differ, said in a note), else keep the default: request > profile > default.
 */
function resolveThresholds(
  options: ComparisonOptions,
  runs: readonly SelectedRun[],
  notes: string[],
): ComparedRow[] {
  const profileIds = new Set(runs.map((run) => run.profileId).filter((id): id is string => id !== null));
  const profiles = usableThresholds(
    options.profileThresholds.filter((stored) => profileIds.has(stored.profileId)),
  );
  if (profiles.length === 0) return options.rows;
  return options.rows.map((row) => {
    const { threshold, conflict } = thresholdOf(row.metric, row.statistic, options.thresholds, profiles);
    if (conflict)
      notes.push(NOTES.thresholdConflict(`${row.metric}.${row.statistic}`, conflict, threshold.value));
    return { ...row, threshold };
  });
}

function diagnosticsOf(side: LoadedSide): RunDiagnostics[] {
  return side.runs.flatMap((run) => side.diagnostics?.get(run.id) ?? []);
}

/** Each side's TPOT and ITL over all its stored histograms, for the roofline and the CDFs. */
function mergedStored(side: LoadedSide): { tpot: LatencyHistogram; itl: LatencyHistogram } {
  const merged = { tpot: new LatencyHistogram(), itl: new LatencyHistogram() };
  for (const { metric, histogram } of side.histograms) {
    if (metric === 'tpot' || metric === 'itl') merged[metric].merge(histogram);
  }
  return merged;
}

/** A side's memory-bound TPOT floor and the fraction of it its P50 TPOT (over all requests) achieves. */
function roofline(side: LoadedSide, tpot: LatencyHistogram): SideRoofline {
  return sideRoofline(
    side.runs.map((run) => ({
      model: side.details.get(run.id)?.model ?? '',
      extra: side.details.get(run.id)?.extra,
      config: run.config,
    })),
    histogramStatistic(tpot, 'p50'),
  );
}

function sideSummary(side: LoadedSide, named?: string[]): ComparisonSideSummary {
  const { runs } = side;
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
    excludedSaturatedRuns: side.excludedSaturated,
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
