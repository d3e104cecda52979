import {
  SWEEP_METRIC_NAMES,
  SWEEP_METRICS,
  isSweepMetricName,
  type SweepMetricName,
} from '@teapot/contracts';
import type { SeriesSweep, SweepFilter, SweepSeriesStore } from '@teapot/db';
import { welchOnLogs } from '@teapot/stats';
import { overallVerdictOf, rowVerdictOf, type Verdict } from './comparisons/verdict';
import { AnalysisInputError } from './errors';
import { checkSelection } from './selection';
import { MAX_TREND_SWEEPS, sweepValue } from './sweep-trend';

/** One side of a sweep comparison: sweep ids, a window, a configuration filter, or a mix. */
export type SweepSide = Omit<SweepFilter, 'from' | 'to'> & { from?: Date; to?: Date };

export interface SweepComparisonQuery {
  baseline: SweepSide;
  candidate: SweepSide;
  /** Default both: capacity and cost_per_mtok. */
  metrics?: string[];
  /** The relative change that matters (default 0.05). */
  threshold?: number;
  /** Of the interval (default 0.95). */
  confidence?: number;
}

export interface SweepValues {
  sweeps: number;
  /** The sweeps with a value, oldest first (a sweep below its lowest load, or without a price, has none). */
  values: number[];
  /** Their geometric mean: the centre the change is measured between. */
  centre: number | null;
  belowLowest: number;
}

export interface SweepMetricComparison {
  metric: SweepMetricName;
  baseline: SweepValues;
  candidate: SweepValues;
  /** Relative change of the geometric mean, candidate over baseline, minus 1. */
  change: number | null;
  changeCi: [number, number] | null;
  pValue: number | null;
  verdict: Verdict;
  /** False when a side has nothing to judge (no sweeps, or cost without a price): left out of the overall verdict. */
  judged?: false;
  /** Why the verdict was reached without an interval, when it was. */
  reason?: string;
}

export interface SweepComparison {
  threshold: number;
  confidence: number;
  metrics: SweepMetricComparison[];
  verdict: Verdict;
}

const DEFAULT_THRESHOLD = 0.05;
const DEFAULT_CONFIDENCE = 0.95;

/**
 * Compares capacity (or cost) between two selections of finished capacity searches, each sweep one
 * sample. Capacities are ratios of a scale, and a search's error is relative (its tolerance), so the
 * comparison is of logs: Welch's t interval on the difference of mean log values, reported as the
 * relative change of the geometric means. With fewer than two sweeps on a side there is no spread to
 * judge against: the change is given, the verdict is inconclusive.
 */
export async function compareSweeps(
  sweeps: SweepSeriesStore,
  query: SweepComparisonQuery,
  now: Date = new Date(),
): Promise<SweepComparison> {
  const metrics = query.metrics ?? [...SWEEP_METRIC_NAMES];
  for (const metric of metrics) {
    if (!isSweepMetricName(metric))
      throw new AnalysisInputError(
        'metrics',
        `names no sweep metric ${metric} (${SWEEP_METRIC_NAMES.join(', ')})`,
      );
  }
  const threshold = query.threshold ?? DEFAULT_THRESHOLD;
  if (!(threshold > 0 && threshold < 1)) throw new AnalysisInputError('threshold', 'must be in (0, 1)');
  const confidence = query.confidence ?? DEFAULT_CONFIDENCE;
  if (!(confidence >= 0.5 && confidence < 1))
    throw new AnalysisInputError('confidence', 'must be in [0.5, 1)');
  const [baseline, candidate] = await Promise.all([
    loadSide(sweeps, query.baseline, 'baseline', now),
    loadSide(sweeps, query.candidate, 'candidate', now),
  ]);
  const rows = (metrics as SweepMetricName[]).map((metric) =>
    compareSweepValues(metric, baseline, candidate, { threshold, confidence }),
  );
  const judged = rows.filter((row) => row.judged !== false).map((row) => row.verdict);
  return { threshold, confidence, metrics: rows, verdict: overallVerdictOf(judged) };
}

async function loadSide(
  store: SweepSeriesStore,
  side: SweepSide,
  name: string,
  now: Date,
): Promise<SeriesSweep[]> {
  if (!side.sweepIds && !side.from)
    throw new AnalysisInputError(`${name}.from`, 'is required without sweepIds');
  const filter: SweepFilter = { ...side, from: side.from ?? new Date(0), to: side.to ?? now };
  try {
    checkSelection(filter);
  } catch (error) {
    if (error instanceof AnalysisInputError)
      throw new AnalysisInputError(`${name}.${error.parameter}`, error.problem);
    throw error;
  }
  const found = await store.capacitySearches(filter, MAX_TREND_SWEEPS + 1);
  if (found.length > MAX_TREND_SWEEPS)
    throw new AnalysisInputError(`${name}.from`, `selects more than ${MAX_TREND_SWEEPS} sweeps: narrow it`);
  return found;
}

/** One metric's judgement between two sets of sweeps (pure: deployment verification uses it too). */
export function compareSweepValues(
  metric: SweepMetricName,
  baselineSweeps: readonly SeriesSweep[],
  candidateSweeps: readonly SeriesSweep[],
  options: { threshold: number; confidence: number },
): SweepMetricComparison {
  const baseline = valuesOf(baselineSweeps, metric);
  const candidate = valuesOf(candidateSweeps, metric);
  const row = { metric, baseline, candidate };
  if (baseline.centre === null || candidate.centre === null) {
    const none = { ...row, change: null, changeCi: null, pValue: null };
    // The SLO missed at every sweep's lowest load on one side only is a change, however large.
    const missed = (side: SweepValues) => side.sweeps > 0 && side.belowLowest === side.sweeps;
    if (metric === 'capacity' && baseline.centre !== null && missed(candidate))
      return {
        ...none,
        verdict: 'regressed',
        reason: 'every candidate sweep missed the SLO at its lowest load',
      };
    if (metric === 'capacity' && candidate.centre !== null && missed(baseline))
      return {
        ...none,
        verdict: 'improved',
        reason: 'every baseline sweep missed the SLO at its lowest load',
      };
    const reason = 'a side has no sweep with a value (no sweeps, or no price for cost)';
    return { ...none, verdict: 'inconclusive', judged: false, reason };
  }
  const change = candidate.centre / baseline.centre - 1;
  const welch = welchOnLogs(baseline.values, candidate.values, options.confidence);
  if (welch === null) {
    return {
      ...row,
      change,
      changeCi: null,
      pValue: null,
      verdict: 'inconclusive',
      reason: 'a single sweep with a value on each side: no spread to judge by',
    };
  }
  const verdict = rowVerdictOf({
    direction: SWEEP_METRICS[metric].direction,
    change,
    changeCi: welch.changeCi,
    threshold: options.threshold,
  });
  return { ...row, change, changeCi: welch.changeCi, pValue: welch.pValue, verdict };
}

function valuesOf(sweeps: readonly SeriesSweep[], metric: SweepMetricName): SweepValues {
  const values = sweeps.map((s) => sweepValue(s, metric)).filter((v): v is number => v !== null && v > 0);
  const centre = values.length
    ? Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length)
    : null;
  return {
    sweeps: sweeps.length,
    values,
    centre,
    belowLowest: sweeps.filter((s) => s.stopReason === 'below_lowest').length,
  };
}
