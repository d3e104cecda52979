import type { Random } from '@teapot/random';
import { poissonSample } from '../distributions';
import { bucketMidpoint, interpolateRanks } from '../histogram';
import {
  isHistogram,
  type Histogram,
  type PooledSample,
  type Pooling,
  type ResampleScheme,
  type RunSamples,
} from './samples';

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
export class Side {
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
    unit: ResampleScheme,
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
