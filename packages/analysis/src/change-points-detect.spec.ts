import type { ChangePoint, SeriesRun } from '@teapot/db';
import { detectChangePoints, newChangePoints } from './change-points';

const KEY = { endpointId: 'e1', profileId: 'p1' };
const T0 = Date.UTC(2026, 10, 2);
const STEP = 24;

/** 40 runs whose throughput drops 30% from run 24 on, with a little alternating noise. */
const runs: SeriesRun[] = Array.from({ length: 40 }, (_, i) => ({
  id: `run-${i}`,
  startedAt: new Date(T0 + i * 3_600_000),
  values: { output_tokens_per_s: (i < STEP ? 1000 : 700) + (i % 2 ? 3 : -3) },
}));

describe('detectChangePoints (no database)', () => {
  const found = detectChangePoints(KEY, runs);
  const throughput = found.filter((c) => c.metric === 'output_tokens_per_s' && c.statistic === 'mean');

  it('places the step of a series at the run where it happened, in both modes', () => {
    for (const mode of ['otava', 'robust'] as const) {
      expect(throughput.find((c) => c.mode === mode && c.kind === 'step')).toMatchObject({
        ...KEY,
        runId: `run-${STEP}`,
        previousRunId: `run-${STEP - 1}`,
        runIndex: STEP,
        unit: 'tokens/s',
      });
    }
    const robust = throughput.find((c) => c.mode === 'robust')!;
    expect(robust.magnitude).toBeCloseTo(-0.3, 2);
    // Series without values (every other metric here) find nothing.
    expect(found.every((c) => c.metric === 'output_tokens_per_s')).toBe(true);
  });

  it('announces only inserted change points with none of their series stored within 2 runs before', () => {
    const robust = throughput.find((c) => c.mode === 'robust')!;
    const stored = (inserted: boolean) => ({
      changePoint: { ...robust, id: 'cp', detectedAt: new Date(), updatedAt: new Date() } as ChangePoint,
      inserted,
    });
    const previousAt = (index: number) => [{ ...robust, runId: `run-${index}` }];
    expect(newChangePoints(found, runs, { previous: [], stored: [stored(true)] })).toHaveLength(1);
    expect(newChangePoints(found, runs, { previous: [], stored: [stored(false)] })).toEqual([]);
    expect(newChangePoints(found, runs, { previous: previousAt(STEP - 2), stored: [stored(true)] })).toEqual(
      [],
    );
    expect(
      newChangePoints(found, runs, { previous: previousAt(STEP - 3), stored: [stored(true)] }),
    ).toHaveLength(1);
  });
});
