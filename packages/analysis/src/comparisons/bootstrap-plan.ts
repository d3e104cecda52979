import { METRICS, type MetricDefinition, type MetricName } from '@teapot/contracts';
import type { MeasuredRequests, SelectedRun, StoredHistogram } from '@teapot/db';
import { requestMetrics } from '@teapot/measure';
import { LatencyHistogram, SparseHistogram } from '@teapot/stats';
import { AnalysisInputError } from '../errors';
import { RESAMPLING_REASONS } from './explain';
import type { ResampleChoice } from './comparison-query';

/** What a comparison's bootstrap redraws: whole runs, or requests (each with all its tokens) from the side's runs. */
export type ComparisonResampleUnit = 'runs' | 'requests';

/** Resampling requests reads raw timings: at most this many successful requests per side. */
export const MAX_RAW_REQUESTS = 20_000;
/** With auto, runs are resampled once both sides have this many runs. */
export const AUTO_RUNS_MIN = 10;
/** Fewer runs than this on a side give no interval when runs are resampled. */
export const MIN_RUNS = 3;
/** A quantile q needs this many samples above it on each side (p99: 1,000 samples; p50 and mean: 20). */
export const MIN_TAIL_SAMPLES = 10;

export interface ResamplePlan {
  unit: ComparisonResampleUnit;
  why: string;
  note?: string;
}

/** What the bootstrap redraws for these sides, and why; asking for requests over too many is an input error. */
export function resamplePlan(
  choice: ResampleChoice,
  baseline: readonly SelectedRun[],
  candidate: readonly SelectedRun[],
): ResamplePlan {
  const fewest = Math.min(baseline.length, candidate.length);
  const rawRequests = Math.max(
    ...[baseline, candidate].map((runs) => runs.reduce((n, run) => n + run.requests, 0)),
  );
  if (choice === 'requests' && rawRequests > MAX_RAW_REQUESTS)
    throw new AnalysisInputError(
      'resample',
      `requests reads raw timings of at most ${MAX_RAW_REQUESTS} requests a side; a side has ${rawRequests}: use runs`,
    );
  const { byRuns, byRequests } = RESAMPLING_REASONS;
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
export interface DistributionSamples {
  units: Map<MetricName, Array<LatencyHistogram | SparseHistogram>>;
  /** Per metric, every sample of the side in one histogram (the value's estimate). */
  merged: Map<MetricName, LatencyHistogram>;
  /** requests: per metric, the run (its index on the side) each unit came from. */
  runOfUnit: Map<MetricName, number[]>;
  /** requests: per-request values (us) of request-weighted metrics; per-request token lists for ITL. */
  perRequest: Map<MetricName, Float64Array[]>;
  rawDropped: number;
}

/** Runs as units: each run's stored histogram of each metric (runs without a sample of it left out). */
export function runSamples(
  histograms: readonly StoredHistogram[],
  metrics: readonly MetricName[],
): DistributionSamples {
  const units = new Map<MetricName, LatencyHistogram[]>(metrics.map((metric) => [metric, []]));
  const merged = new Map(metrics.map((metric) => [metric, new LatencyHistogram()]));
  for (const { metric, histogram } of histograms) {
    units.get(metric)?.push(histogram);
    merged.get(metric)?.merge(histogram);
  }
  return { units, merged, runOfUnit: new Map(), perRequest: new Map(), rawDropped: 0 };
}

/** Requests as units: each successful measured request's values of each metric, and the run it is of. */
export function requestSamples(
  runs: readonly SelectedRun[],
  requests: MeasuredRequests,
  metrics: readonly MetricName[],
): DistributionSamples {
  const units = new Map<MetricName, SparseHistogram[]>(metrics.map((metric) => [metric, []]));
  const merged = new Map(metrics.map((metric) => [metric, new LatencyHistogram()]));
  const perRequest = new Map<MetricName, Float64Array[]>(metrics.map((metric) => [metric, []]));
  const runOfUnit = new Map<MetricName, number[]>(metrics.map((metric) => [metric, []]));
  for (const [r, run] of runs.entries()) {
    for (const record of requests.byRun.get(run.id) ?? []) {
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
  return { units, merged, runOfUnit, perRequest, rawDropped: requests.rawDropped };
}

/**
 * The stored histograms a comparison reads of each side, once: the compared distribution metrics when
 * runs are resampled, and always TPOT (the roofline) and ITL (the CDFs).
 */
export function storedHistogramMetrics(
  distributionMetrics: readonly MetricName[],
  unit: ComparisonResampleUnit,
): MetricName[] {
  return [...new Set<MetricName>([...(unit === 'runs' ? distributionMetrics : []), 'tpot', 'itl'])];
}
