import { HISTOGRAM_MAX_US, HISTOGRAM_RELATIVE_ERROR, LatencyHistogram } from './histogram';

/** numpy's default percentile: linear interpolation between closest ranks. */
function exactPercentile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-normal-ish latencies from 1 us to ~minutes, whole microseconds. */
function latencies(n: number, seed: number): Float64Array {
  const random = seeded(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(Math.exp(random() * 18));
  return out;
}

const QUANTILES = [0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1];

describe('LatencyHistogram', () => {
  it('answers every percentile within the stated relative error of the exact value', () => {
    for (const seed of [1, 2, 3]) {
      const values = latencies(20_000, seed);
      const histogram = new LatencyHistogram();
      histogram.recordAll(values);
      const sorted = Float64Array.from(values).sort();
      for (const q of QUANTILES) {
        const exact = exactPercentile(sorted, q);
        const approx = histogram.percentile(q)!;
        expect(Math.abs(approx - exact)).toBeLessThanOrEqual(exact * HISTOGRAM_RELATIVE_ERROR + 1e-9);
      }
      expect(histogram.min).toBe(sorted[0]);
      expect(histogram.max).toBe(sorted[sorted.length - 1]);
      expect(histogram.count).toBe(values.length);
      expect(histogram.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6);
    }
  });

  it('is exact below 128 us and keeps one sample exactly', () => {
    const small = new LatencyHistogram();
    small.recordAll([3, 5, 127, 100]);
    expect(small.percentile(0.5)).toBe(exactPercentile(Float64Array.from([3, 5, 100, 127]), 0.5));
    const one = new LatencyHistogram();
    one.record(123_456);
    expect(one.percentile(0.99)).toBe(123_456);
  });

  it('merges two histograms into exactly the histogram of the union', () => {
    const a = latencies(5_000, 7);
    const b = latencies(3_000, 8);
    const left = new LatencyHistogram();
    left.recordAll(a);
    const right = new LatencyHistogram();
    right.recordAll(b);
    const union = new LatencyHistogram();
    union.recordAll(a);
    union.recordAll(b);
    const merged = left.merge(right);
    expect(merged.encode()).toEqual(union.encode());
    for (const q of QUANTILES) expect(merged.percentile(q)).toBe(union.percentile(q));
  });

  it('round-trips through its sparse encoding', () => {
    const histogram = new LatencyHistogram();
    histogram.recordAll(latencies(10_000, 9));
    histogram.record(HISTOGRAM_MAX_US * 2);
    const bytes = histogram.encode();
    const decoded = LatencyHistogram.decode(bytes);
    expect(decoded.encode()).toEqual(bytes);
    expect(decoded.count).toBe(10_001);
    expect(decoded.max).toBe(HISTOGRAM_MAX_US);
    for (const q of QUANTILES) expect(decoded.percentile(q)).toBe(histogram.percentile(q));
    // sparse: far smaller than one 8-byte count per bucket
    expect(bytes.length).toBeLessThan(4_000);
    expect(LatencyHistogram.decode(new LatencyHistogram().encode()).percentile(0.5)).toBeNull();
  });

  it('merges encoded histograms in place into exactly the histogram of the union', () => {
    const parts = [latencies(4_000, 11), latencies(2_500, 12), new Float64Array(0), latencies(1, 13)];
    const union = new LatencyHistogram();
    const merged = new LatencyHistogram();
    for (const values of parts) {
      union.recordAll(values);
      const part = new LatencyHistogram();
      part.recordAll(values);
      merged.mergeEncoded(part.encode());
    }
    expect(merged.encode()).toEqual(union.encode());
    expect(merged.min).toBe(union.min);
    for (const q of QUANTILES) expect(merged.percentile(q)).toBe(union.percentile(q));
    // A Buffer view into a larger allocation (as pg returns bytea) reads its own bytes only.
    const bytes = union.encode();
    const pooled = Buffer.concat([Buffer.from([7, 7, 7]), bytes]).subarray(3);
    expect(new LatencyHistogram().mergeEncoded(pooled).encode()).toEqual(bytes);
    expect(() => new LatencyHistogram().mergeEncoded(bytes.subarray(0, 6))).toThrow(/ends inside/);
  });

  it('refuses negative and non-finite latencies and quantiles outside [0, 1]', () => {
    const histogram = new LatencyHistogram();
    expect(() => histogram.record(-1)).toThrow(RangeError);
    expect(() => histogram.record(Number.NaN)).toThrow(RangeError);
    expect(() => histogram.percentile(1.5)).toThrow(RangeError);
    expect(() => LatencyHistogram.decode(Uint8Array.of(9))).toThrow(/version 9/);
  });
});
