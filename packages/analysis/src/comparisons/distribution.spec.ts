import { LatencyHistogram } from '@teapot/db';
import { CDF_QUANTILES, cdfPoints } from './distribution';

describe('cdfPoints', () => {
  it('draws at a bounded set of quantiles, denser in the tail', () => {
    expect(CDF_QUANTILES.length).toBeLessThanOrEqual(200);
    expect(CDF_QUANTILES).toContain(0.999);
    expect(CDF_QUANTILES).toContain(0.9999);
    expect([...CDF_QUANTILES].sort((a, b) => a - b)).toEqual(CDF_QUANTILES);
  });

  it('is empty without samples, and one step at the value when all samples are equal', () => {
    expect(cdfPoints(new LatencyHistogram())).toEqual([]);
    const same = new LatencyHistogram();
    same.record(50, 1000);
    expect(cdfPoints(same)).toEqual([{ value: 0.05, fraction: 1 }]);
  });

  it('keeps the highest fraction of each value, so two values give two steps', () => {
    const two = new LatencyHistogram();
    two.record(40, 500);
    two.record(100, 500);
    const points = cdfPoints(two);
    expect(points[0]).toEqual({ value: 0.04, fraction: 0.49 });
    expect(points[points.length - 1]).toEqual({ value: 0.1, fraction: 1 });
    // Between the two, the interpolated quantile at 0.5 only.
    expect(points).toHaveLength(3);
  });
});
