import type { ProfileSnapshot } from '@teapot/contracts';
import { sampleSnapshot } from '@teapot/contracts/testing';
import { matchWorkloads } from './workload';

const snapshot = (overrides: Partial<ProfileSnapshot> = {}) =>
  sampleSnapshot({
    load: { kind: 'closed', concurrency: 4 },
    requestCount: 20,
    scheduleIntervalS: 60,
    ...overrides,
  });

describe('matchWorkloads', () => {
  it('runs differing only in schedule, name and key order are like with like', () => {
    const reordered = snapshot({
      name: 'other',
      scheduleIntervalS: 3600,
      workload: { outputTokens: 8, inputTokens: 16, kind: 'synthetic' },
    });
    expect(matchWorkloads([snapshot()], [reordered])).toEqual({ same: true, differences: [] });
  });

  it('a different concurrency is named with the values of each side', () => {
    const match = matchWorkloads(
      [snapshot(), snapshot()],
      [snapshot({ load: { kind: 'closed', concurrency: 32 } })],
    );
    expect(match.same).toBe(false);
    expect(match.differences).toEqual([
      {
        field: 'load',
        baseline: [{ kind: 'closed', concurrency: 4 }],
        candidate: [{ kind: 'closed', concurrency: 32 }],
      },
    ]);
  });

  it('a side that mixes workloads is not like with like either', () => {
    const match = matchWorkloads([snapshot(), snapshot({ requestCount: 200 })], [snapshot()]);
    expect(match.differences.map((d) => d.field)).toEqual(['requestCount']);
    expect(match.differences[0].baseline).toEqual([20, 200]);
  });
});
