import { ProfileStore } from '@teapot/db';
import { openTestDatabase, storeEndpoint, type OpenTestDatabase } from '@teapot/db/testing';
import { AnalysisInputError } from '../errors';
import { checkThresholds, thresholdOf, usableThresholds } from './thresholds';

describe('thresholdOf', () => {
  const a = { profileId: 'a', thresholds: { itl: 0.2, 'itl.p99': 0.08 } };
  const b = { profileId: 'b', thresholds: { 'itl.p99': 0.03 } };

  it('takes the request, then the profiles, then the default; metric.statistic wins over metric', () => {
    expect(thresholdOf('itl', 'p99', { itl: 0.5 }, [a, b])).toEqual({
      threshold: { value: 0.5, kind: 'relative', source: 'request' },
    });
    expect(thresholdOf('itl', 'p99', { 'itl.p99': 0.4, itl: 0.5 }, [a]).threshold.value).toBe(0.4);
    expect(thresholdOf('itl', 'p99', {}, [a])).toEqual({
      threshold: { value: 0.08, kind: 'relative', source: 'profile', profileId: 'a' },
    });
    expect(thresholdOf('itl', 'p50', {}, [a]).threshold).toMatchObject({ value: 0.2, source: 'profile' });
    expect(thresholdOf('ttft', 'p50', {}, [a, b])).toEqual({
      threshold: { value: 0.05, kind: 'relative', source: 'default' },
    });
    expect(thresholdOf('error_rate', 'mean', {}, [])).toEqual({
      threshold: { value: 0.01, kind: 'absolute', source: 'default' },
    });
  });

  it('takes the strictest when the profiles disagree, and lists their values', () => {
    expect(thresholdOf('itl', 'p99', {}, [a, b])).toEqual({
      threshold: { value: 0.03, kind: 'relative', source: 'profile', profileId: 'b' },
      conflict: [0.03, 0.08],
    });
    // A profile that sets nothing for the row neither wins nor conflicts.
    expect(thresholdOf('itl', 'p50', {}, [a, b])).toEqual({
      threshold: { value: 0.2, kind: 'relative', source: 'profile', profileId: 'a' },
    });
  });
});

describe('checkThresholds', () => {
  const problem = (value: unknown): [string, string] | null => {
    try {
      checkThresholds(value, 'comparisonThresholds');
      return null;
    } catch (error) {
      if (!(error instanceof AnalysisInputError)) throw error;
      return [error.parameter, error.problem];
    }
  };

  it('accepts metrics and metric.statistic keys of the catalogue, 0 to 10', () => {
    expect(
      problem({ itl: 0, 'itl.p99.9': 0.1, 'itl.p99/p50': 0.2, 'error_rate.mean': 0.005, ttft: 10 }),
    ).toBeNull();
  });

  it('names the key at fault', () => {
    expect(problem({ 'itl.p42': 0.1 })?.[0]).toBe('comparisonThresholds.itl.p42');
    expect(problem({ 'itl.p42': 0.1 })?.[1]).toMatch(/names no statistic of itl: one of p50, p90/);
    expect(problem({ vibes: 0.1 })).toEqual([
      'comparisonThresholds.vibes',
      expect.stringMatching(/names no metric/),
    ]);
    expect(problem({ 'ttft.p99/p50': 0.1 })?.[0]).toBe('comparisonThresholds.ttft.p99/p50');
    expect(problem({ 'requests_per_s.p99': 0.1 })?.[0]).toBe('comparisonThresholds.requests_per_s.p99');
    for (const bad of [-0.1, 10.5, Number.NaN, '5%', null])
      expect(problem({ tpot: bad })?.[0]).toBe('comparisonThresholds.tpot');
    for (const bad of [null, [], 'itl', 3]) expect(problem(bad)?.[0]).toBe('comparisonThresholds');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 0.1]));
    expect(problem(many)).toEqual(['comparisonThresholds', 'may hold at most 100 thresholds']);
  });
});

describe('usableThresholds of the stored profiles', () => {
  let db: OpenTestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase();
  });

  afterAll(() => db?.close());

  it('reads what the profiles store and leaves out keys the catalogue no longer accepts', async () => {
    const endpointId = await storeEndpoint(db);
    const profile = (name: string, comparisonThresholds: object) =>
      db.prisma.profile.create({
        data: { name, endpointId, workload: {}, load: {}, requestCount: 1, comparisonThresholds },
      });
    const kept = await profile('kept', { 'itl.p99': 0.03, retired_metric: 0.1, ttft: 'x' });
    const none = await profile('none', {});
    expect(usableThresholds(await new ProfileStore(db).comparisonThresholds([kept.id, none.id]))).toEqual([
      { profileId: kept.id, thresholds: { 'itl.p99': 0.03 } },
    ]);
    expect(await new ProfileStore(db).comparisonThresholds([])).toEqual([]);
  });
});
