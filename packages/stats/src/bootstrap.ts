import { mulberry32, percentile, type Random } from '@teapot/measure';
import { poissonSample } from './distributions';
import { LatencyHistogram, bucketMidpoint, interpolateRanks } from './histogram';

/** What a custom statistic sees: the pooled samples of one side (all its runs together). */
export interface PooledSample {
  readonly count: number;
  readonly mean: number;
  /** numpy-linear q-quantile, q in [0, 1] (within the histogram's error when the runs are histograms). */
  quantile(q: number): number;
}

export type NamedStatistic = 'p50' | 'p90' | 'p95' | 'p99' | 'p99.9' | 'mean';
export type Statistic = NamedStatistic | ((pooled: PooledSample) => number);
export type ResampleUnit = 'runs' | 'within-runs';

/** One run's samples: a histogram (microseconds) or the raw values (any unit). */
export type RunSamples = LatencyHistogram | ArrayLike<number>;

export interface BootstrapDeltaInput {
  /** One entry per run. */
  baseline: ReadonlyArray<RunSamples>;
  candidate: ReadonlyArray<RunSamples>;
  statistic: Statistic;
  /** `runs`: draw whole runs with replacement (cluster bootstrap); `within-runs`: keep the runs, redraw each run's samples. */
  resample: ResampleUnit;
  /** Default 2,000. */
  iterations?: number;
  /** Default 0.95. */
  confidence?: number;
  /** Default 1. */
  seed?: number;
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
  resample: ResampleUnit;
}

export const NAMED_QUANTILES: Readonly<Record<Exclude<NamedStatistic, 'mean'>, number>> = {
  p50: 0.5,
  p90: 0.9,
  p95: 0.95,
  p99: 0.99,
  'p99.9': 0.999,
};

const DEFAULT_ITERATIONS = 2_000;
const MAX_ITERATIONS = 100_000;

/**
 * Bootstrap confidence interval of the change of a statistic from `baseline` to `candidate`, each a
 * set of runs whose samples are pooled (a P99 over all tokens of all runs, never a mean of per-run
 * P99s). Resamples are counts over the distinct values (or buckets) of each side, so a resample
 * costs additions, not a sort. Seeded: the same input and seed give the same interval.
 */
export function bootstrapDelta(input: BootstrapDeltaInput): BootstrapDeltaResult {
  const iterations = input.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be an integer within [1, ${MAX_ITERATIONS}], got ${iterations}`);
  const confidence = input.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  if (input.resample !== 'runs' && input.resample !== 'within-runs')
    throw new RangeError(`resample must be 'runs' or 'within-runs', got ${String(input.resample)}`);
  const statistic = statisticOf(input.statistic);
  const baseline = Side.of(input.baseline, 'baseline');
  const candidate = Side.of(input.candidate, 'candidate');
  if (baseline.histograms !== candidate.histograms)
    throw new RangeError('baseline and candidate must both be histograms or both be raw values');

  const baselineValue = baseline.pointEstimate(statistic);
  const candidateValue = candidate.pointEstimate(statistic);
  const random = mulberry32(input.seed ?? 1);
  const deltas = new Float64Array(iterations);
  const relatives = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const b = baseline.resampled(statistic, input.resample, random);
    const c = candidate.resampled(statistic, input.resample, random);
    deltas[i] = c - b;
    relatives[i] = c / b - 1;
  }
  deltas.sort();
  relatives.sort();
  const alpha = (1 - confidence) / 2;
  return {
    baseline: baselineValue,
    candidate: candidateValue,
    delta: candidateValue - baselineValue,
    relativeDelta: candidateValue / baselineValue - 1,
    ci: [percentile(deltas, alpha), percentile(deltas, 1 - alpha)],
    relativeCi: [percentile(relatives, alpha), percentile(relatives, 1 - alpha)],
    iterations,
    resample: input.resample,
  };
}

function statisticOf(statistic: Statistic): (pooled: PooledSample) => number {
  if (typeof statistic === 'function') return statistic;
  if (statistic === 'mean') return (pooled) => pooled.mean;
  const q = NAMED_QUANTILES[statistic];
  if (q === undefined) throw new RangeError(`unknown statistic ${String(statistic)}`);
  return (pooled) => pooled.quantile(q);
}

/** A run as counts over its side's sorted distinct values (bucket midpoints for histograms). */
interface RunCounts {
  slots: Int32Array;
  counts: Float64Array;
  total: number;
  /** Exact sum (a histogram keeps it); midpoint sums drift from it by the bucket rounding. */
  sum: number;
  min: number;
  max: number;
}

/** One side of a comparison, prepared for fast resampling. */
class Side {
  private readonly pooled: Float64Array;

  private constructor(
    readonly histograms: boolean,
    private readonly values: Float64Array,
    private readonly runs: RunCounts[],
  ) {
    this.pooled = new Float64Array(values.length);
  }

  static of(entries: ReadonlyArray<RunSamples>, field: string): Side {
    if (!Array.isArray(entries) || entries.length === 0)
      throw new RangeError(`${field} must list at least one run`);
    const histograms = entries[0] instanceof LatencyHistogram;
    for (let r = 0; r < entries.length; r++) {
      if (entries[r] instanceof LatencyHistogram !== histograms)
        throw new RangeError(
          `${field}[${r}]: every run of a side must be a histogram, or every run raw values`,
        );
    }
    const side = histograms
      ? Side.ofHistograms(entries as LatencyHistogram[])
      : Side.ofValues(entries as ArrayLike<number>[], field);
    if (side.runs.every((run) => run.total === 0)) throw new RangeError(`${field} holds no samples`);
    return side;
  }

  private static ofHistograms(histograms: LatencyHistogram[]): Side {
    const used = new Set<number>();
    for (const h of histograms) h.forEachBucket((bucket) => used.add(bucket));
    const buckets = Int32Array.from(used).sort();
    const slotOf = new Map<number, number>();
    buckets.forEach((bucket, slot) => slotOf.set(bucket, slot));
    const runs = histograms.map((h): RunCounts => {
      const slots: number[] = [];
      const counts: number[] = [];
      h.forEachBucket((bucket, count) => {
        slots.push(slotOf.get(bucket)!);
        counts.push(count);
      });
      const total = h.count;
      return {
        slots: Int32Array.from(slots),
        counts: Float64Array.from(counts),
        total,
        sum: total ? h.mean! * total : 0,
        min: h.min ?? Infinity,
        max: h.max ?? -Infinity,
      };
    });
    return new Side(true, Float64Array.from(buckets, bucketMidpoint), runs);
  }

  private static ofValues(arrays: ArrayLike<number>[], field: string): Side {
    let size = 0;
    for (const values of arrays) size += values.length;
    const all = new Float64Array(size);
    let at = 0;
    arrays.forEach((values, r) => {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (!Number.isFinite(value)) throw new RangeError(`${field}[${r}][${i}] is not a finite number`);
        all[at++] = value;
      }
    });
    const distinct = uniqueSorted(all);
    const runs = arrays.map((values): RunCounts => {
      const slots = new Int32Array(values.length);
      let sum = 0;
      let min = Infinity;
      let max = -Infinity;
      for (let i = 0; i < values.length; i++) {
        slots[i] = lowerBound(distinct, values[i]);
        sum += values[i];
        if (values[i] < min) min = values[i];
        if (values[i] > max) max = values[i];
      }
      return { slots, counts: new Float64Array(values.length).fill(1), total: values.length, sum, min, max };
    });
    return new Side(false, distinct, runs);
  }

  pointEstimate(statistic: (pooled: PooledSample) => number): number {
    this.pooled.fill(0);
    let total = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const run of this.runs) {
      this.add(run.slots, run.counts);
      total += run.total;
      sum += run.sum;
      min = Math.min(min, run.min);
      max = Math.max(max, run.max);
    }
    return statistic(this.sample(total, sum / total, min, max));
  }

  resampled(statistic: (pooled: PooledSample) => number, unit: ResampleUnit, random: Random): number {
    this.pooled.fill(0);
    let total = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    if (unit === 'runs') {
      for (let k = 0; k < this.runs.length; k++) {
        const run = this.runs[Math.floor(random() * this.runs.length)];
        this.add(run.slots, run.counts);
        total += run.total;
        sum += run.sum;
        min = Math.min(min, run.min);
        max = Math.max(max, run.max);
      }
      if (total === 0) return NaN;
      return statistic(this.sample(total, sum / total, min, max));
    }
    // Within runs: a multinomial redraw of each run's samples; histograms get the Poisson bootstrap
    // (each bucket's count redrawn as Poisson(count)), which needs no per-sample draws.
    let midpointSum = 0;
    let resampledMidpointSum = 0;
    let resampledTotal = 0;
    for (const run of this.runs) {
      if (run.total === 0) continue;
      total += run.total;
      sum += run.sum;
      min = Math.min(min, run.min);
      max = Math.max(max, run.max);
      for (let i = 0; i < run.slots.length; i++) midpointSum += this.values[run.slots[i]] * run.counts[i];
      if (this.histograms) {
        for (let i = 0; i < run.slots.length; i++) {
          const drawn = poissonSample(random, run.counts[i]);
          this.pooled[run.slots[i]] += drawn;
          resampledTotal += drawn;
          resampledMidpointSum += this.values[run.slots[i]] * drawn;
        }
      } else {
        for (let i = 0; i < run.total; i++) {
          const slot = run.slots[Math.floor(random() * run.total)];
          this.pooled[slot] += 1;
          resampledMidpointSum += this.values[slot];
        }
        resampledTotal += run.total;
      }
    }
    if (resampledTotal === 0) return NaN;
    // The resample's mean moves by as much as its value-weighted mean moved: exact for raw values,
    // and for histograms it keeps the exact mean as the centre instead of the midpoints' mean.
    const mean = sum / total + resampledMidpointSum / resampledTotal - midpointSum / total;
    return statistic(this.sample(resampledTotal, mean, min, max));
  }

  private add(slots: Int32Array, counts: Float64Array): void {
    const pooled = this.pooled;
    for (let i = 0; i < slots.length; i++) pooled[slots[i]] += counts[i];
  }

  private sample(total: number, mean: number, min: number, max: number): PooledSample {
    const pooled = this.pooled;
    const values = this.values;
    return {
      count: total,
      mean,
      quantile: (q) => {
        // Ranks are asked for in ascending order (lo, then lo + 1): one forward scan serves both.
        let slot = 0;
        let seen = pooled[0];
        return interpolateRanks(total, q, (rank) => {
          while (seen <= rank && slot < values.length - 1) seen += pooled[++slot];
          return Math.min(Math.max(values[slot], min), max);
        });
      },
    };
  }
}

function uniqueSorted(values: Float64Array): Float64Array {
  const sorted = Float64Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}

function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
