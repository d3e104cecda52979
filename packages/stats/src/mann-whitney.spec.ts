import { mannWhitneyU } from './mann-whitney';

const range = (n: number, at: (i: number) => number) => Array.from({ length: n }, (_, i) => at(i));

// Reference values from scipy 1.10.1: scipy.stats.mannwhitneyu(a, b) with its defaults
// (two-sided, use_continuity=True, method='auto').
describe('mannWhitneyU', () => {
  it('matches scipy exactly on small samples without ties', () => {
    const a = [1.1, 2.3, 3.5, 4.2, 5.9];
    const b = [6.1, 7.4, 8.8, 9.0, 10.5, 11.2];
    expect(mannWhitneyU(a, b)).toMatchObject({ u: 0, method: 'exact' });
    expect(mannWhitneyU(a, b).pValue).toBeCloseTo(0.004329004329004329, 15);
    expect(mannWhitneyU([3.1, 5.2, 7.3, 9.4], [1, 2, 4, 6, 8, 10, 12])).toMatchObject({ u: 14, pValue: 1 });
    const eight = range(8, (i) => 0.5 + i * 1.37);
    const thirty = range(30, (j) => 0.3 + j * 0.71);
    const result = mannWhitneyU(eight, thirty);
    expect(result).toMatchObject({ u: 61, method: 'exact' });
    expect(result.pValue).toBeCloseTo(0.034312355444883154, 12);
  });

  it('matches scipy with the tie-corrected normal approximation', () => {
    const ties = mannWhitneyU([1, 2, 2, 3, 3, 3, 4, 5, 5, 6], [2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 9]);
    expect(ties).toMatchObject({ u: 23.5, method: 'normal' });
    expect(ties.pValue / 0.027640884214298913).toBeCloseTo(1, 6);
    expect(ties.z).toBeLessThan(0);

    const a = range(40, (i) => ((i * 7919) % 101) / 10);
    const b = range(50, (j) => ((j * 104729) % 97) / 10 + 1.5);
    const large = mannWhitneyU(a, b);
    expect(large.u).toBe(759.5);
    expect(large.pValue / 0.05130169772133963).toBeCloseTo(1, 6);

    const low = range(30, (i) => i * 1.5);
    const high = range(40, (j) => 20 + j * 1.1);
    expect(mannWhitneyU(low, high).u).toBe(186);
    expect(mannWhitneyU(high, low).u).toBe(1014);
    expect(mannWhitneyU(low, high).pValue / 9.227850523740257e-7).toBeCloseTo(1, 5);
    expect(mannWhitneyU(high, low).z).toBeCloseTo(-mannWhitneyU(low, high).z, 12);
    expect(mannWhitneyU(high, low).z).toBeGreaterThan(4);
  });

  it('gives p = 1 for identical samples', () => {
    const same = range(10, (i) => i + 1);
    expect(mannWhitneyU(same, same)).toMatchObject({ u: 50, z: 0, pValue: 1, method: 'normal' });
  });

  it('names the sample that is empty or holds a non-number', () => {
    expect(() => mannWhitneyU([], [1])).toThrow(/sample a is empty/);
    expect(() => mannWhitneyU([1], [])).toThrow(/sample b is empty/);
    expect(() => mannWhitneyU([1, Number.NaN], [2])).toThrow(/a\[1\]/);
  });
});
