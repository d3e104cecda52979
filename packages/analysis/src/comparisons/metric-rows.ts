import {
  METRICS,
  statisticOf,
  statisticUnit,
  type MetricDefinition,
  type MetricName,
  type Statistic,
} from '@teapot/contracts';
import type { RunDetail, SelectedRun } from '@teapot/db';
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
import { histogramStatistic, pooledSource, reportedScale, sortedSource } from '../histogram-statistic';
import {
  MIN_RUNS,
  MIN_TAIL_SAMPLES,
  type ComparisonResampleUnit,
  type DistributionSamples,
} from './bootstrap-plan';
import type { ComparedRow } from './comparison-query';
import type { MetricComparison } from './compare';
import { rowVerdictOf } from './verdict';

export interface RowOptions {
  iterations: number;
  seed: number;
  confidence: number;
}

/** The statistic as the bootstrap computes it on a pooled side (us, or a ratio). */
function bootstrapStatistic(statistic: Statistic): BootstrapStatistic {
  const definition = statisticOf(statistic);
  return (pooled: PooledSample) => definition.of(pooledSource(pooled)) ?? Number.NaN;
}

/** The statistic of one unit's own samples (a run's histogram, or a request's values), for the rank test. */
function unitStatistic(values: Float64Array, statistic: Statistic): number | null {
  if (values.length === 0) return null;
  return statisticOf(statistic).of(sortedSource(Float64Array.from(values).sort()));
}

/** Samples a statistic needs on a side: MIN_TAIL_SAMPLES beyond its quantile (p99: 1,000; p50 and mean: 20). */
function samplesNeeded(statistic: Statistic): number {
  const q = statisticOf(statistic).tailQuantile;
  return Math.ceil(MIN_TAIL_SAMPLES / (1 - Math.max(q, 0.5)));
}

export function compareDistribution(
  metric: MetricName,
  rows: ComparedRow[],
  baseline: DistributionSamples,
  candidate: DistributionSamples,
  unit: ComparisonResampleUnit,
  options: RowOptions,
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
    const k = reportedScale(statistic);
    const b = histogramStatistic(merged.baseline, statistic);
    const c = histogramStatistic(merged.candidate, statistic);
    const interval = intervals.get(statistic);
    const insufficient = insufficientOf(statistic);
    const base = {
      metric,
      statistic,
      unit: statisticUnit(statistic, definition.unit),
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
      verdict: rowVerdictOf({
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
  unit: ComparisonResampleUnit,
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

export function compareRate(
  row: ComparedRow,
  baselineRuns: SelectedRun[],
  candidateRuns: SelectedRun[],
  details: { baseline: Map<string, RunDetail>; candidate: Map<string, RunDetail> },
  options: RowOptions,
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
    verdict: rowVerdictOf({
      direction: definition.direction,
      change: absolute ? interval.delta : interval.relativeDelta,
      changeCi: absolute ? interval.ci : interval.relativeCi,
      threshold: row.threshold.value,
    }),
  };
}

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

/** A row without an interval: inconclusive, and why. */
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
export function seedOf(seed: number, metric: string): number {
  let hash = 2166136261;
  for (let i = 0; i < metric.length; i++) hash = Math.imul(hash ^ metric.charCodeAt(i), 16777619);
  return (seed ^ hash) >>> 0;
}
