import { overallVerdictOf, rowVerdictOf } from './verdict';

describe('rowVerdictOf', () => {
  const lower = { direction: 'lower-is-better' as const, threshold: 0.05 };
  const higher = { direction: 'higher-is-better' as const, threshold: 0.05 };

  it('a latency that grew beyond the threshold with its whole interval above zero regressed', () => {
    expect(rowVerdictOf({ ...lower, change: 0.2, changeCi: [0.12, 0.28] })).toBe('regressed');
  });

  it('the same growth of a throughput is an improvement', () => {
    expect(rowVerdictOf({ ...higher, change: 0.2, changeCi: [0.12, 0.28] })).toBe('improved');
  });

  it('a throughput that fell is a regression', () => {
    expect(rowVerdictOf({ ...higher, change: -0.2, changeCi: [-0.28, -0.12] })).toBe('regressed');
  });

  it('a latency that fell is an improvement', () => {
    expect(rowVerdictOf({ ...lower, change: -0.2, changeCi: [-0.3, -0.1] })).toBe('improved');
  });

  it('an interval within the threshold is unchanged, even when it excludes zero', () => {
    expect(rowVerdictOf({ ...lower, change: 0.02, changeCi: [0.01, 0.03] })).toBe('unchanged');
    expect(rowVerdictOf({ ...lower, change: 0, changeCi: [-0.04, 0.04] })).toBe('unchanged');
  });

  it('a large point change whose interval crosses zero is inconclusive', () => {
    expect(rowVerdictOf({ ...lower, change: 0.2, changeCi: [-0.05, 0.45] })).toBe('inconclusive');
  });

  it('a real change below the threshold with an interval reaching past it is inconclusive', () => {
    expect(rowVerdictOf({ ...lower, change: 0.04, changeCi: [0.01, 0.09] })).toBe('inconclusive');
  });

  it('a non-finite delta (baseline of zero) is inconclusive', () => {
    expect(rowVerdictOf({ ...lower, change: Infinity, changeCi: [Infinity, Infinity] })).toBe('inconclusive');
  });
});

describe('overallVerdictOf', () => {
  it('one regression wins over everything', () => {
    expect(overallVerdictOf(['improved', 'inconclusive', 'regressed'])).toBe('regressed');
  });
  it('inconclusive wins over improved and unchanged', () => {
    expect(overallVerdictOf(['improved', 'inconclusive', 'unchanged'])).toBe('inconclusive');
  });
  it('improved when something improved and the rest is unchanged', () => {
    expect(overallVerdictOf(['improved', 'unchanged'])).toBe('improved');
  });
  it('nothing to judge is inconclusive', () => {
    expect(overallVerdictOf([])).toBe('inconclusive');
  });
});
