import { percentile } from './percentile';

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
