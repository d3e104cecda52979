import { studentTTwoSided } from './distributions';
import { tQuantile, welchOnLogs } from './welch';

describe('tQuantile', () => {
  it.each([
    // Two-sided 5% points of Student's t, from the standard tables.
    [1, 12.706],
    [4, 2.776],
    [10, 2.228],
    [30, 2.042],
    [1e6, 1.96],
  ])('at df %d is %d for alpha 0.05', (df, expected) => {
    expect(tQuantile(0.05, df)).toBeCloseTo(expected, 2);
    expect(studentTTwoSided(tQuantile(0.05, df), df)).toBeCloseTo(0.05, 9);
  });
});

describe('welchOnLogs', () => {
  it('gives the change of the geometric means with an interval that holds it', () => {
    const a = [30, 31, 29, 30.5];
    const b = [24, 25, 23.5, 24.5];
    const { changeCi, pValue } = welchOnLogs(a, b, 0.95)!;
    const geo = (v: number[]) => Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length);
    const change = geo(b) / geo(a) - 1;
    expect(changeCi[0]).toBeLessThan(change);
    expect(changeCi[1]).toBeGreaterThan(change);
    expect(changeCi[1]).toBeLessThan(0);
    expect(pValue).toBeLessThan(0.001);
  });

  it('matches Welch by hand on the logs', () => {
    const a = [10, 12, 11];
    const b = [13, 15, 14, 16];
    const la = a.map(Math.log);
    const lb = b.map(Math.log);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const variance = (v: number[]) => v.reduce((s, x) => s + (x - mean(v)) ** 2, 0) / (v.length - 1);
    const sa = variance(la) / 3;
    const sb = variance(lb) / 4;
    const df = (sa + sb) ** 2 / (sa ** 2 / 2 + sb ** 2 / 3);
    const half = tQuantile(0.1, df) * Math.sqrt(sa + sb);
    const diff = mean(lb) - mean(la);
    const result = welchOnLogs(a, b, 0.9)!;
    expect(result.changeCi[0]).toBeCloseTo(Math.exp(diff - half) - 1, 12);
    expect(result.changeCi[1]).toBeCloseTo(Math.exp(diff + half) - 1, 12);
  });

  it("lends a single value the other side's spread and degrees of freedom", () => {
    const baseline = [40, 42, 41, 39, 43];
    const logs = baseline.map(Math.log);
    const mean = logs.reduce((sum, v) => sum + v, 0) / 5;
    const variance = logs.reduce((sum, v) => sum + (v - mean) ** 2, 0) / 4;
    const half = tQuantile(0.05, 4) * Math.sqrt(variance / 5 + variance);
    const diff = Math.log(29) - mean;
    const single = welchOnLogs(baseline, [29], 0.95)!;
    expect(single.changeCi[0]).toBeCloseTo(Math.exp(diff - half) - 1, 12);
    expect(single.changeCi[1]).toBeCloseTo(Math.exp(diff + half) - 1, 12);
    expect(single.changeCi[1]).toBeLessThan(-0.2);
  });

  it('has no interval with fewer than two values on both sides, and an exact one for identical repeats', () => {
    expect(welchOnLogs([1], [2], 0.95)).toBeNull();
    expect(welchOnLogs([], [1, 2], 0.95)).toBeNull();
    const exact = welchOnLogs([2, 2], [3, 3], 0.95)!;
    expect(exact.changeCi[0]).toBeCloseTo(0.5, 12);
    expect(exact.changeCi[1]).toBe(exact.changeCi[0]);
    expect(exact.pValue).toBe(0);
  });
});
