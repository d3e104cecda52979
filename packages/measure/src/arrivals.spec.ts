import { arrivalSchedule } from './arrivals';

function meanGapS(times: Float64Array): number {
  return (times[times.length - 1] - times[0]) / (times.length - 1) / 1e6;
}

function coefficientOfVariation(times: Float64Array): number {
  const gaps = Array.from(times.subarray(1), (t, i) => t - times[i]);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const variance = gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length;
  return Math.sqrt(variance) / mean;
}

describe('arrivalSchedule', () => {
  it('gives absolute, increasing send times starting at 0', () => {
    const times = arrivalSchedule({ ratePerS: 10, arrival: 'poisson', count: 1000, seed: 1 });
    expect(times.length).toBe(1000);
    expect(times[0]).toBe(0);
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]);
  });

  it('has the requested mean rate for every process', () => {
    for (const arrival of ['poisson', 'gamma', 'constant'] as const) {
      const times = arrivalSchedule({ ratePerS: 50, arrival, burstiness: 0.5, count: 20_000, seed: 7 });
      expect(meanGapS(times)).toBeCloseTo(1 / 50, 3);
    }
  });

  it('makes gaps exponential for poisson, burstier for gamma shape < 1, and fixed for constant', () => {
    const cv = (arrival: 'poisson' | 'gamma' | 'constant', burstiness?: number) =>
      coefficientOfVariation(arrivalSchedule({ ratePerS: 100, arrival, burstiness, count: 20_000, seed: 3 }));
    expect(cv('poisson')).toBeCloseTo(1, 1);
    // Gamma(shape k) gaps have CV 1/sqrt(k)
    expect(cv('gamma', 0.25)).toBeCloseTo(2, 1);
    expect(cv('gamma', 4)).toBeCloseTo(0.5, 1);
    expect(cv('constant')).toBeLessThan(1e-9);
    const constant = arrivalSchedule({ ratePerS: 4, arrival: 'constant', count: 5 });
    expect(Array.from(constant)).toEqual([0, 250_000, 500_000, 750_000, 1_000_000]);
  });

  it('is reproducible from its seed and differs across seeds', () => {
    const a = arrivalSchedule({ ratePerS: 5, arrival: 'gamma', burstiness: 0.7, count: 100, seed: 42 });
    const b = arrivalSchedule({ ratePerS: 5, arrival: 'gamma', burstiness: 0.7, count: 100, seed: 42 });
    const c = arrivalSchedule({ ratePerS: 5, arrival: 'gamma', burstiness: 0.7, count: 100, seed: 43 });
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a)).not.toEqual(Array.from(c));
  });

  it('ends at a duration, a count, or whichever comes first', () => {
    const byDuration = arrivalSchedule({ ratePerS: 100, arrival: 'poisson', durationS: 10, seed: 9 });
    expect(byDuration[byDuration.length - 1]).toBeLessThan(10e6);
    expect(byDuration.length).toBeGreaterThan(900);
    expect(byDuration.length).toBeLessThan(1100);
    expect(arrivalSchedule({ ratePerS: 100, arrival: 'constant', durationS: 10, count: 5 }).length).toBe(5);
    expect(arrivalSchedule({ ratePerS: 1, arrival: 'constant', durationS: 2.5, count: 100 }).length).toBe(3);
  });

  it('rejects schedules that cannot exist', () => {
    expect(() => arrivalSchedule({ ratePerS: 0, arrival: 'poisson', count: 1 })).toThrow(RangeError);
    expect(() => arrivalSchedule({ ratePerS: 1, arrival: 'gamma', burstiness: 0, count: 1 })).toThrow(
      RangeError,
    );
    expect(() => arrivalSchedule({ ratePerS: 1, arrival: 'poisson' })).toThrow(RangeError);
  });
});
