import { mulberry32 } from '@teapot/random';
import { checkedConfidence, checkedIterations, percentileInterval } from './interval';
import {
  POOLINGS,
  type NamedStatistic,
  type PooledSample,
  type PooledStatistic,
  type Pooling,
  type ResampleScheme,
  type RunSamples,
} from './samples';
import { Side } from './side';

export interface BootstrapDeltaInput {
  /** One entry per run. */
  baseline: ReadonlyArray<RunSamples>;
  candidate: ReadonlyArray<RunSamples>;
  statistic: PooledStatistic;
  /** `runs`: draw whole runs with replacement (cluster bootstrap); `within-runs`: keep the runs, redraw each run's samples. */
  resample: ResampleScheme;
  /** Default 2,000. */
  iterations?: number;
  /** Default 0.95. */
  confidence?: number;
  /** Default 1. */
  seed?: number;
  /**
   * With `runs`, redraw in two stages (a clustered bootstrap): the groups the entries belong to
   * (e.g. the runs requests came from) with replacement, then each drawn group's entries with
   * replacement. Entry i of a side is in group `groups.baseline[i]` (any integers). Without it,
   * entries are drawn as independent units.
   */
  groups?: { baseline: ArrayLike<number>; candidate: ArrayLike<number> };
  /** How a resample of runs is pooled; every choice gives the same intervals (see Pooling). Default auto. */
  pooling?: Pooling;
}

export interface BootstrapDeltaResult {
  baseline: number;
  candidate: number;
  /** candidate - baseline. */
  delta: number;
  /** candidate / baseline - 1. */
  relativeDelta: number;
  /** Percentile interval of the resampled deltas. */
  ci: [number, number];
  relativeCi: [number, number];
  iterations: number;
  resample: ResampleScheme;
}

export const NAMED_QUANTILES: Readonly<Record<Exclude<NamedStatistic, 'mean'>, number>> = {
  p50: 0.5,
  p90: 0.9,
  p95: 0.95,
  p99: 0.99,
  'p99.9': 0.999,
};

/**
 * Bootstrap confidence interval of the change of a statistic from `baseline` to `candidate`, each a
 * set of runs whose samples are pooled (a P99 over all tokens of all runs, never a mean of per-run
 * P99s). Resamples are counts over the distinct values (or buckets) of each side, so a resample
 * costs additions, not a sort. Seeded: the same input and seed give the same interval.
 */
export function bootstrapDelta(input: BootstrapDeltaInput): BootstrapDeltaResult {
  const { statistic, ...rest } = input;
  return bootstrapDeltas({ ...rest, statistics: [statistic] })[0];
}

export interface BootstrapDeltasInput extends Omit<BootstrapDeltaInput, 'statistic'> {
  statistics: readonly PooledStatistic[];
}

/**
 * bootstrapDelta for several statistics of the same two sides: every statistic is read from the
 * same resamples (one resampling pass instead of one per statistic, and intervals that agree with
 * each other). Results are in the order of `statistics`.
 */
export function bootstrapDeltas(input: BootstrapDeltasInput): BootstrapDeltaResult[] {
  const iterations = checkedIterations(input.iterations);
  const confidence = checkedConfidence(input.confidence);
  if (input.resample !== 'runs' && input.resample !== 'within-runs')
    throw new RangeError(`resample must be 'runs' or 'within-runs', got ${String(input.resample)}`);
  if (!Array.isArray(input.statistics) || input.statistics.length === 0)
    throw new RangeError('statistics must list at least one statistic');
  const statistics = input.statistics.map(evaluatorOf);
  const pooling = input.pooling ?? 'auto';
  if (!(POOLINGS as readonly string[]).includes(pooling))
    throw new RangeError(`pooling must be one of ${POOLINGS.join(', ')}, got ${String(pooling)}`);
  const baseline = Side.of(input.baseline, 'baseline', input.groups?.baseline);
  const candidate = Side.of(input.candidate, 'candidate', input.groups?.candidate);
  if (input.resample === 'runs') {
    baseline.choosePooling(pooling, statistics.length);
    candidate.choosePooling(pooling, statistics.length);
  }
  if (baseline.histograms !== candidate.histograms)
    throw new RangeError('baseline and candidate must both be histograms or both be raw values');

  const baselineValues = baseline.pointEstimates(statistics);
  const candidateValues = candidate.pointEstimates(statistics);
  const random = mulberry32(input.seed ?? 1);
  const deltas = statistics.map(() => new Float64Array(iterations));
  const relatives = statistics.map(() => new Float64Array(iterations));
  for (let i = 0; i < iterations; i++) {
    const b = baseline.resampled(statistics, input.resample, random);
    const c = candidate.resampled(statistics, input.resample, random);
    for (let s = 0; s < statistics.length; s++) {
      deltas[s][i] = c[s] - b[s];
      relatives[s][i] = c[s] / b[s] - 1;
    }
  }
  return statistics.map((_, s) => {
    const [baselineValue, candidateValue] = [baselineValues[s], candidateValues[s]];
    return {
      baseline: baselineValue,
      candidate: candidateValue,
      delta: candidateValue - baselineValue,
      relativeDelta: candidateValue / baselineValue - 1,
      ci: percentileInterval(deltas[s], confidence),
      relativeCi: percentileInterval(relatives[s], confidence),
      iterations,
      resample: input.resample,
    };
  });
}

/** A statistic as the function of a pooled sample it is read with. */
function evaluatorOf(statistic: PooledStatistic): (pooled: PooledSample) => number {
  if (typeof statistic === 'function') return statistic;
  if (statistic === 'mean') return (pooled) => pooled.mean;
  const q = NAMED_QUANTILES[statistic];
  if (q === undefined) throw new RangeError(`unknown statistic ${String(statistic)}`);
  return (pooled) => pooled.quantile(q);
}
