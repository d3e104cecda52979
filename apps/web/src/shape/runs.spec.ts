import { itlP99Sparkline, latestResult } from './runs';

const run = (
  finishedAt: string | null,
  itlP99Ms: number | null,
  clientSaturated: boolean | null = false,
) => ({
  finishedAt,
  queuedAt: '2026-12-01T00:00:00.000Z',
  itlP99Ms,
  clientSaturated,
});

describe('runs shaping', () => {
  const newestFirst = [
    run(null, null),
    run('2026-12-01T00:03:00.000Z', 9, true),
    run('2026-12-01T00:02:00.000Z', 7),
    run('2026-12-01T00:01:00.000Z', null),
    run('2026-12-01T00:00:00.000Z', 5),
  ];

  it('draws P99 ITL oldest first, without unfinished, ITL-less or client-saturated runs', () => {
    const t0 = Date.parse('2026-12-01T00:00:00.000Z') / 1000;
    expect(itlP99Sparkline(newestFirst)).toEqual([
      [t0, t0 + 120],
      [5, 7],
    ]);
  });

  it('draws client-saturated runs too when asked', () => {
    expect(itlP99Sparkline(newestFirst, true)[1]).toEqual([5, 7, 9]);
  });

  it('takes the newest run that is a result as the latest', () => {
    expect(latestResult(newestFirst)).toBe(newestFirst[2]);
    expect(latestResult([run(null, null)])).toBeUndefined();
  });
});
