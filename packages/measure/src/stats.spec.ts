import { percentile, percentileSummary as summarizeValues } from './stats';

describe('percentile (numpy linear)', () => {
  const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('matches numpy.percentile on known values', () => {
    expect(percentile(oneToTen, 0.99)).toBeCloseTo(9.91, 12);
    expect(percentile(oneToTen, 0.9)).toBeCloseTo(9.1, 12);
    expect(percentile([15, 20, 35, 40, 50], 0.4)).toBeCloseTo(29.0, 12);
    expect(percentile([1, 2], 0.5)).toBe(1.5);
  });

  it('returns the ends at q=0 and q=1 and the only value of a single sample', () => {
    expect(percentile(oneToTen, 0)).toBe(1);
    expect(percentile(oneToTen, 1)).toBe(10);
    expect(percentile([5], 0.99)).toBe(5);
    expect(percentile(new Float64Array([5]), 0)).toBe(5);
  });

  it('is NaN for no samples and rejects q outside [0, 1]', () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(() => percentile(oneToTen, 99)).toThrow(RangeError);
    expect(() => percentile(oneToTen, -0.1)).toThrow(RangeError);
    expect(() => percentile(oneToTen, NaN)).toThrow(RangeError);
  });
});

describe('describe', () => {
  it('matches numpy on an unsorted sample (population std)', () => {
    // numpy: percentile(b, [50, 90, 95, 99, 99.9]), mean(b), std(b) with ddof=0
    const b = [3.5, 0.25, 7, 7, 12.75, 1, 100, 42];
    const s = summarizeValues(b)!;
    expect(s.count).toBe(8);
    expect(s.min).toBe(0.25);
    expect(s.max).toBe(100);
    expect(s.p50).toBeCloseTo(7.0, 10);
    expect(s.p90).toBeCloseTo(59.39999999999999, 10);
    expect(s.p95).toBeCloseTo(79.69999999999996, 10);
    expect(s.p99).toBeCloseTo(95.93999999999998, 10);
    expect(s.p999).toBeCloseTo(99.594, 10);
    expect(s.mean).toBeCloseTo(21.6875, 12);
    expect(s.std).toBeCloseTo(32.16188301001669, 10);
  });

  it('does not reorder its input and is null when empty', () => {
    const values = new Float64Array([3, 1, 2]);
    summarizeValues(values);
    expect(Array.from(values)).toEqual([3, 1, 2]);
    expect(summarizeValues([])).toBeNull();
  });
});
