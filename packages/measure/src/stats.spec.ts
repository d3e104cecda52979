import { percentileSummary as summarizeValues } from './stats';

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
