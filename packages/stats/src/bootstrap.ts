import { mulberry32, type Random } from '@teapot/random';
import { percentile } from '@teapot/run-definitions';
import { poissonSample } from './distributions';
import { LatencyHistogram, SparseHistogram, bucketMidpoint, interpolateRanks } from './histogram';

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

/** One run's samples: a histogram (microseconds), dense or sparse, or the raw values (any unit). */
export type RunSamples = LatencyHistogram | SparseHistogram | ArrayLike<number>;
type Histogram = LatencyHistogram | SparseHistogram;

function isHistogram(samples: RunSamples): samples is Histogram {
  return samples instanceof LatencyHistogram || samples instanceof SparseHistogram;
}

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

/**
 * How a resample of whole runs becomes the pooled counts its quantiles are read from. `counts` adds
 * every drawn run's buckets into one array (cost: the drawn runs' non-empty buckets); `prefix` keeps
 * each run's cumulative counts per bucket and finds a quantile's bucket by a search starting at the
 * previous resample's, reading one weighted sum over the drawn runs per bucket probed (cost: a few
 * probes x runs per quantile). Counts are whole numbers, so both sums are exact and the intervals are
 * identical; `auto` takes prefix when it is cheaper and its table is small. Within-runs is always counts.
 */
export const POOLINGS = ['auto', 'counts', 'prefix'] as const;
export type Pooling = (typeof POOLINGS)[number];

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
  const { statistic, ...rest } = input;
  return bootstrapDeltas({ ...rest, statistics: [statistic] })[0];
}

export interface BootstrapDeltasInput extends Omit<BootstrapDeltaInput, 'statistic'> {
  statistics: readonly Statistic[];
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
  const statistics = input.statistics.map(statisticOf);
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

/** A run's share of a pooled rate: its numerator and denominator (e.g. output tokens and seconds). */
export interface RateTotals {
  numerator: number;
  denominator: number;
}

export interface BootstrapRatioInput {
  /** One entry per run. */
  baseline: ReadonlyArray<RateTotals>;
  candidate: ReadonlyArray<RateTotals>;
  /** Default 2,000. */
  iterations?: number;
  /** Default 0.95. */
  confidence?: number;
  /** Default 1. */
  seed?: number;
}

/**
 * Bootstrap confidence interval of the change of a pooled rate (sum of numerators / sum of
 * denominators, never a mean of per-run rates), resampling whole runs: a run is the only unit a rate
 * has. Seeded like bootstrapDelta.
 */
export function bootstrapRatioDelta(input: BootstrapRatioInput): BootstrapDeltaResult {
  const iterations = checkedIterations(input.iterations);
  const confidence = checkedConfidence(input.confidence);
  const baseline = checkedTotals(input.baseline, 'baseline');
  const candidate = checkedTotals(input.candidate, 'candidate');
  const random = mulberry32(input.seed ?? 1);
  const deltas = new Float64Array(iterations);
  const relatives = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const b = resampledRatio(baseline, random);
    const c = resampledRatio(candidate, random);
    deltas[i] = c - b;
    relatives[i] = c / b - 1;
  }
  const b = pooledRatio(baseline);
  const c = pooledRatio(candidate);
  return {
    baseline: b,
    candidate: c,
    delta: c - b,
    relativeDelta: c / b - 1,
    ci: percentileInterval(deltas, confidence),
    relativeCi: percentileInterval(relatives, confidence),
    iterations,
    resample: 'runs',
  };
}

function checkedTotals(runs: ReadonlyArray<RateTotals>, field: string): ReadonlyArray<RateTotals> {
  if (!Array.isArray(runs) || runs.length === 0) throw new RangeError(`${field} must list at least one run`);
  runs.forEach((run, r) => {
    if (!Number.isFinite(run?.numerator) || !Number.isFinite(run?.denominator) || run.denominator < 0)
      throw new RangeError(`${field}[${r}] needs a finite numerator and a denominator >= 0`);
  });
  if (runs.every((run) => run.denominator === 0)) throw new RangeError(`${field} has no denominator`);
  return runs;
}

function pooledRatio(runs: ReadonlyArray<RateTotals>): number {
  let numerator = 0;
  let denominator = 0;
  for (const run of runs) {
    numerator += run.numerator;
    denominator += run.denominator;
  }
  return numerator / denominator;
}

function resampledRatio(runs: ReadonlyArray<RateTotals>, random: Random): number {
  let numerator = 0;
  let denominator = 0;
  for (let k = 0; k < runs.length; k++) {
    const run = runs[Math.floor(random() * runs.length)];
    numerator += run.numerator;
    denominator += run.denominator;
  }
  return denominator > 0 ? numerator / denominator : NaN;
}

function checkedIterations(value: number | undefined): number {
  const iterations = value ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be an integer within [1, ${MAX_ITERATIONS}], got ${iterations}`);
  return iterations;
}

function checkedConfidence(value: number | undefined): number {
  const confidence = value ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  return confidence;
}

/** The central `confidence` interval of the resampled values (sorted in place). */
function percentileInterval(values: Float64Array, confidence: number): [number, number] {
  values.sort();
  const alpha = (1 - confidence) / 2;
  return [percentile(values, alpha), percentile(values, 1 - alpha)];
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

/** The most cells (distinct values x runs) a side's prefix table may have under `auto`: 16 MiB. */
const PREFIX_MAX_CELLS = 1 << 21;
/** About how many weighted sums a quantile's search reads per resample (measured: 3 to 8). */
const PROBES_PER_QUANTILE = 8;

/** One side of a comparison, prepared for fast resampling. */
class Side {
  private readonly pooled: Float64Array;
  private readonly draws: Int32Array;
  /** The entries of each group, when entries are drawn in two stages. */
  private clusters: Int32Array[] | null = null;
  /** Pooling by prefix: cumulative counts, value-major (prefix[slot * runs + run]); null pools by counts. */
  private prefix: Float64Array | null = null;
  /** The drawn runs of the current resample and how often each was drawn. */
  private readonly drawn: Int32Array;
  private readonly weights: Float64Array;
  /** Per quantile, the slot the previous resample found it at: where the next search starts. */
  private readonly hints = new Map<number, number>();

  private constructor(
    readonly histograms: boolean,
    private readonly values: Float64Array,
    private readonly runs: RunCounts[],
  ) {
    this.pooled = new Float64Array(values.length);
    this.draws = new Int32Array(runs.length);
    this.drawn = new Int32Array(runs.length);
    this.weights = new Float64Array(runs.length);
  }

  /** Prepares resampling runs by prefix when asked, or under auto when it is cheaper and small (see Pooling). */
  choosePooling(pooling: Pooling, statistics: number): void {
    if (pooling === 'counts') return;
    const slots = this.values.length;
    const runs = this.runs.length;
    if (pooling === 'auto') {
      const buckets = this.runs.reduce((n, run) => n + run.slots.length, 0);
      if (slots * runs > PREFIX_MAX_CELLS || buckets / runs < PROBES_PER_QUANTILE * statistics) return;
    }
    const prefix = new Float64Array(slots * runs);
    const counts = new Float64Array(slots);
    this.runs.forEach((run, r) => {
      counts.fill(0);
      for (let i = 0; i < run.slots.length; i++) counts[run.slots[i]] += run.counts[i];
      let cumulative = 0;
      for (let slot = 0; slot < slots; slot++) {
        cumulative += counts[slot];
        prefix[slot * runs + r] = cumulative;
      }
    });
    this.prefix = prefix;
  }

  static of(entries: ReadonlyArray<RunSamples>, field: string, groups?: ArrayLike<number>): Side {
    const side = Side.ofEntries(entries, field);
    if (groups !== undefined) {
      if (groups.length !== entries.length)
        throw new RangeError(
          `groups of ${field} must name a group for each of its ${entries.length} entries`,
        );
      const members = new Map<number, number[]>();
      for (let i = 0; i < groups.length; i++) {
        if (!Number.isInteger(groups[i])) throw new RangeError(`groups of ${field}[${i}] is not an integer`);
        const list = members.get(groups[i]) ?? [];
        list.push(i);
        members.set(groups[i], list);
      }
      side.clusters = [...members.values()].map((list) => Int32Array.from(list));
    }
    return side;
  }

  private static ofEntries(entries: ReadonlyArray<RunSamples>, field: string): Side {
    if (!Array.isArray(entries) || entries.length === 0)
      throw new RangeError(`${field} must list at least one run`);
    const histograms = isHistogram(entries[0]);
    for (let r = 0; r < entries.length; r++) {
      if (isHistogram(entries[r]) !== histograms)
        throw new RangeError(
          `${field}[${r}]: every run of a side must be a histogram, or every run raw values`,
        );
    }
    const side = histograms
      ? Side.ofHistograms(entries as Histogram[])
      : Side.ofValues(entries as ArrayLike<number>[], field);
    if (side.runs.every((run) => run.total === 0)) throw new RangeError(`${field} holds no samples`);
    return side;
  }

  private static ofHistograms(histograms: Histogram[]): Side {
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

  pointEstimates(statistics: ReadonlyArray<(pooled: PooledSample) => number>): number[] {
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
    const pooled = this.sample(total, sum / total, min, max);
    return statistics.map((statistic) => statistic(pooled));
  }

  resampled(
    statistics: ReadonlyArray<(pooled: PooledSample) => number>,
    unit: ResampleUnit,
    random: Random,
  ): number[] {
    this.pooled.fill(0);
    let total = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    if (unit === 'runs' && this.prefix) return this.resampledByPrefix(statistics, random, this.prefix);
    if (unit === 'runs') {
      // Count how often each run is drawn, then add each drawn run once, times its draws: about a
      // third of the runs are not drawn at all, so this skips a third of the additions.
      const draws = this.drawRuns(random);
      for (let r = 0; r < this.runs.length; r++) {
        const times = draws[r];
        if (times === 0) continue;
        const run = this.runs[r];
        this.add(run.slots, run.counts, times);
        total += run.total * times;
        sum += run.sum * times;
        min = Math.min(min, run.min);
        max = Math.max(max, run.max);
      }
      if (total === 0) return statistics.map(() => NaN);
      const pooled = this.sample(total, sum / total, min, max);
      return statistics.map((statistic) => statistic(pooled));
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
    if (resampledTotal === 0) return statistics.map(() => NaN);
    // The resample's mean moves by as much as its value-weighted mean moved: exact for raw values,
    // and for histograms it keeps the exact mean as the centre instead of the midpoints' mean.
    const mean = sum / total + resampledMidpointSum / resampledTotal - midpointSum / total;
    const pooled = this.sample(resampledTotal, mean, min, max);
    return statistics.map((statistic) => statistic(pooled));
  }

  /** How often each run (entry) is drawn in one resample: with replacement, or in two stages by group. */
  private drawRuns(random: Random): Int32Array {
    const draws = this.draws.fill(0);
    if (this.clusters) {
      // Two stages: groups with replacement, then each drawn group's entries with replacement.
      const clusters = this.clusters;
      for (let g = 0; g < clusters.length; g++) {
        const members = clusters[Math.floor(random() * clusters.length)];
        for (let k = 0; k < members.length; k++) draws[members[Math.floor(random() * members.length)]] += 1;
      }
    } else {
      for (let k = 0; k < this.runs.length; k++) draws[Math.floor(random() * this.runs.length)] += 1;
    }
    return draws;
  }

  /**
   * resampled() over whole runs, pooling by prefix: the same draws in the same order, and the same
   * rank-to-value rule as sample(), read from weighted sums of the drawn runs' cumulative counts.
   */
  private resampledByPrefix(
    statistics: ReadonlyArray<(pooled: PooledSample) => number>,
    random: Random,
    prefix: Float64Array,
  ): number[] {
    const runs = this.runs.length;
    const draws = this.drawRuns(random);
    const { drawn, weights, values } = this;
    let m = 0;
    let total = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let r = 0; r < runs; r++) {
      const times = draws[r];
      if (times === 0) continue;
      const run = this.runs[r];
      drawn[m] = r;
      weights[m++] = times;
      total += run.total * times;
      sum += run.sum * times;
      min = Math.min(min, run.min);
      max = Math.max(max, run.max);
    }
    if (total === 0) return statistics.map(() => NaN);
    const cumulative = (slot: number): number => {
      const row = slot * runs;
      let count = 0;
      for (let i = 0; i < m; i++) count += weights[i] * prefix[row + drawn[i]];
      return count;
    };
    const last = values.length - 1;
    const pooled: PooledSample = {
      count: total,
      mean: sum / total,
      quantile: (q) => {
        let slot = -1;
        let atSlot = 0;
        const value = interpolateRanks(total, q, (rank) => {
          // The slot found for rank lo also holds lo + 1 unless lo + 1 is its last sample.
          if (slot < 0 || atSlot <= rank)
            [slot, atSlot] = firstSlotAbove(
              cumulative,
              rank,
              slot < 0 ? (this.hints.get(q) ?? 0) : slot,
              last,
            );
          return Math.min(Math.max(values[slot], min), max);
        });
        this.hints.set(q, slot);
        return value;
      },
    };
    return statistics.map((statistic) => statistic(pooled));
  }

  private add(slots: Int32Array, counts: Float64Array, times = 1): void {
    const pooled = this.pooled;
    for (let i = 0; i < slots.length; i++) pooled[slots[i]] += counts[i] * times;
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

/**
 * The first slot whose cumulative count exceeds `rank` (the last slot when none does, as sample()
 * scans), and its count: galloping from `start` (resampled quantiles sit near the previous one), then
 * bisecting.
 */
function firstSlotAbove(
  cumulative: (slot: number) => number,
  rank: number,
  start: number,
  last: number,
): [number, number] {
  // The answer is in (lo, hi]; lo is -1 or a slot whose count is at most rank.
  let lo: number;
  let hi = Math.min(Math.max(start, 0), last);
  let atHi = cumulative(hi);
  if (atHi > rank) {
    lo = -1;
    for (let step = 1; hi - step >= 0; step *= 2) {
      const at = cumulative(hi - step);
      if (at <= rank) {
        lo = hi - step;
        break;
      }
      hi -= step;
      atHi = at;
    }
  } else {
    lo = hi;
    for (let step = 1; ; step *= 2) {
      if (lo + step >= last) {
        hi = last;
        atHi = cumulative(last);
        break;
      }
      const at = cumulative(lo + step);
      if (at > rank) {
        hi = lo + step;
        atHi = at;
        break;
      }
      lo += step;
    }
  }
  while (hi - lo > 1) {
    const mid = lo + ((hi - lo) >> 1);
    const at = cumulative(mid);
    if (at > rank) {
      hi = mid;
      atHi = at;
    } else lo = mid;
  }
  return [hi, atHi];
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
