/**
 * A mergeable log-linear histogram of latencies in integer microseconds (HDR-style): values below
 * 128 us have a bucket each; above, every power of two is split into 64 equal buckets, so a bucket
 * is at most 1/64 of its lower bound wide. Values are rounded to whole microseconds and clamped to
 * 1 hour.
 *
 * Percentiles are APPROXIMATE, unlike the exact run-level percentiles of @teapot/measure: the same
 * linear interpolation between closest ranks (numpy's default), but each ranked sample is replaced
 * by its bucket's midpoint (clamped to the exact min and max), so a result is within
 * `HISTOGRAM_RELATIVE_ERROR` (1/128, about 0.8%) of the exact percentile, plus 0.5 us of rounding.
 * Histograms of different runs merge losslessly, so a P99 over any window needs no raw tokens.
 */

const LINEAR_BITS = 7;
const LINEAR = 1 << LINEAR_BITS;
const HALF = LINEAR >> 1;
/** One hour in microseconds: the largest latency kept apart; longer ones count as one hour. */
export const HISTOGRAM_MAX_US = 3_600_000_000;
/** Bound on |approximate - exact| / exact of a percentile (plus 0.5 us for rounding to whole us). */
export const HISTOGRAM_RELATIVE_ERROR = 1 / LINEAR;

const ENCODING_VERSION = 1;

function bucketOf(value: number): number {
  if (value < LINEAR) return value;
  // value < 2^32 (clamped to one hour), so clz32 gives the exact power of two.
  const shift = 31 - Math.clz32(value) - (LINEAR_BITS - 1);
  return LINEAR + (shift - 1) * HALF + ((value >>> shift) - HALF);
}

function bucketBounds(index: number): { low: number; high: number } {
  if (index < LINEAR) return { low: index, high: index };
  const s = Math.floor((index - LINEAR) / HALF) + 1;
  const mantissa = ((index - LINEAR) % HALF) + HALF;
  const low = mantissa * 2 ** s;
  return { low, high: low + 2 ** s - 1 };
}

const BUCKETS = bucketOf(HISTOGRAM_MAX_US) + 1;

/** The value a bucket's samples stand for: the middle of the bucket. */
export function bucketMidpoint(bucket: number): number {
  const { low, high } = bucketBounds(bucket);
  return (low + high) / 2;
}

function checkQuantile(q: number): void {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be within [0, 1], got ${q}`);
}

/**
 * numpy's default percentile (linear interpolation between closest ranks) over `total` ranked
 * samples that `valueAtRank` yields: one definition for a histogram and for resampled bucket counts.
 */
export function interpolateRanks(total: number, q: number, valueAtRank: (rank: number) => number): number {
  checkQuantile(q);
  const h = (total - 1) * q;
  const lo = Math.floor(h);
  const atLo = valueAtRank(lo);
  if (h === lo) return atLo;
  return atLo + (h - lo) * (valueAtRank(lo + 1) - atLo);
}

/**
 * The same buckets as a LatencyHistogram, stored sparsely: for many small units (each request's
 * tokens) that a bootstrap redraws, where a dense histogram per unit would cost kilobytes each.
 */
export class SparseHistogram {
  private constructor(
    private readonly buckets: Int32Array,
    private readonly counts: Float64Array,
    readonly count: number,
    private readonly sum: number,
    private readonly minUs: number,
    private readonly maxUs: number,
  ) {}

  /** The histogram of these latencies (us), rounded and clamped as LatencyHistogram.record does. */
  static of(valuesUs: ArrayLike<number>): SparseHistogram {
    const indices = new Int32Array(valuesUs.length);
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < valuesUs.length; i++) {
      const raw = valuesUs[i];
      if (!Number.isFinite(raw) || raw < 0)
        throw new RangeError(`latency must be a finite number >= 0, got ${raw}`);
      const value = Math.min(Math.round(raw), HISTOGRAM_MAX_US);
      indices[i] = bucketOf(value);
      sum += value;
      if (value < min) min = value;
      if (value > max) max = value;
    }
    indices.sort();
    const buckets: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < indices.length; i++) {
      if (buckets.length > 0 && buckets[buckets.length - 1] === indices[i]) counts[counts.length - 1] += 1;
      else {
        buckets.push(indices[i]);
        counts.push(1);
      }
    }
    return new SparseHistogram(
      Int32Array.from(buckets),
      Float64Array.from(counts),
      valuesUs.length,
      sum,
      min,
      max,
    );
  }

  get min(): number | null {
    return this.count ? this.minUs : null;
  }

  get max(): number | null {
    return this.count ? this.maxUs : null;
  }

  get mean(): number | null {
    return this.count ? this.sum / this.count : null;
  }

  /** Calls `visit` with each non-empty bucket's index and count, in ascending order of value. */
  forEachBucket(visit: (bucket: number, count: number) => void): void {
    for (let i = 0; i < this.buckets.length; i++) visit(this.buckets[i], this.counts[i]);
  }
}

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private sum = 0;
  private minUs = Infinity;
  private maxUs = -Infinity;

  /** Records `count` samples of `valueUs` (negative and non-finite values are refused). */
  record(valueUs: number, count = 1): void {
    if (!Number.isFinite(valueUs) || valueUs < 0)
      throw new RangeError(`latency must be a finite number >= 0, got ${valueUs}`);
    const value = Math.min(Math.round(valueUs), HISTOGRAM_MAX_US);
    this.counts[bucketOf(value)] += count;
    this.total += count;
    this.sum += value * count;
    if (value < this.minUs) this.minUs = value;
    if (value > this.maxUs) this.maxUs = value;
  }

  recordAll(valuesUs: ArrayLike<number>): void {
    for (let i = 0; i < valuesUs.length; i++) this.record(valuesUs[i]);
  }

  /** Adds another histogram's samples to this one. */
  merge(other: LatencyHistogram): this {
    for (let i = 0; i < BUCKETS; i++) this.counts[i] += other.counts[i];
    this.total += other.total;
    this.sum += other.sum;
    this.minUs = Math.min(this.minUs, other.minUs);
    this.maxUs = Math.max(this.maxUs, other.maxUs);
    return this;
  }

  get count(): number {
    return this.total;
  }

  /** Exact minimum and maximum, in whole microseconds; null when empty. */
  get min(): number | null {
    return this.total ? this.minUs : null;
  }

  get max(): number | null {
    return this.total ? this.maxUs : null;
  }

  /** Exact mean of the rounded samples; null when empty. */
  get mean(): number | null {
    return this.total ? this.sum / this.total : null;
  }

  /** Approximate q-quantile (q in [0, 1]) in microseconds; null when empty. See the file comment. */
  percentile(q: number): number | null {
    if (this.total === 0) {
      checkQuantile(q);
      return null;
    }
    return interpolateRanks(this.total, q, (rank) => this.valueAtRank(rank));
  }

  private valueAtRank(rank: number): number {
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i];
      if (seen > rank) return Math.min(Math.max(bucketMidpoint(i), this.minUs), this.maxUs);
    }
    return this.maxUs;
  }

  /** Calls `visit` with each non-empty bucket's index and count, in ascending order of value. */
  forEachBucket(visit: (bucket: number, count: number) => void): void {
    for (let i = 0; i < BUCKETS; i++) if (this.counts[i] !== 0) visit(i, this.counts[i]);
  }

  /**
   * Sparse encoding: version, total, min, max (varints), sum (float64 LE), then for each non-empty
   * bucket the gap from the previous bucket index and its count (varints).
   */
  encode(): Buffer {
    const out: number[] = [ENCODING_VERSION];
    writeVarint(out, this.total);
    writeVarint(out, this.total ? this.minUs : 0);
    writeVarint(out, this.total ? this.maxUs : 0);
    const sum = Buffer.alloc(8);
    sum.writeDoubleLE(this.sum);
    out.push(...sum);
    let previous = -1;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.counts[i] === 0) continue;
      writeVarint(out, i - previous);
      writeVarint(out, this.counts[i]);
      previous = i;
    }
    return Buffer.from(out);
  }

  static decode(bytes: Uint8Array): LatencyHistogram {
    return new LatencyHistogram().mergeEncoded(bytes);
  }

  /**
   * Adds an encoded histogram's samples to this one, reading the bytes in place: no histogram is
   * allocated and only the encoded (non-empty) buckets are touched, so merging thousands of stored
   * histograms costs their bytes, not thousands of dense bucket arrays.
   */
  mergeEncoded(bytes: Uint8Array): this {
    const reader = { bytes, at: 0 };
    const version = bytes[reader.at++];
    if (version !== ENCODING_VERSION) throw new Error(`unknown histogram encoding version ${version}`);
    const total = readVarint(reader);
    const min = readVarint(reader);
    const max = readVarint(reader);
    if (reader.at + 8 > bytes.length) throw new Error('histogram encoding ends inside its sum');
    const sum = new DataView(bytes.buffer, bytes.byteOffset + reader.at, 8).getFloat64(0, true);
    reader.at += 8;
    let index = -1;
    while (reader.at < bytes.length) {
      index += readVarint(reader);
      if (index >= BUCKETS) throw new Error('histogram encoding names a bucket out of range');
      this.counts[index] += readVarint(reader);
    }
    if (total) {
      this.total += total;
      this.sum += sum;
      if (min < this.minUs) this.minUs = min;
      if (max > this.maxUs) this.maxUs = max;
    }
    return this;
  }
}

/** Unsigned LEB128 of a non-negative integer up to 2^53. */
function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function readVarint(reader: { bytes: Uint8Array; at: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (reader.at >= reader.bytes.length) throw new Error('histogram encoding ends inside a number');
    const byte = reader.bytes[reader.at++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}
