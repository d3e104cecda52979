import type { SeriesRun, StoredChangePoint } from '@teapot/db';
import * as identity from './change-point-identity';
import { detectChangePoints } from './change-points';

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

  it("takes a profile's comparison threshold for a series as the smallest change it reports", () => {
    // 4% slower from run 40 on, in 1% noise: over the 2% default, under a profile's 5%.
    const slower: SeriesRun[] = Array.from({ length: 80 }, (_, i) => ({
      id: `run-${i}`,
      startedAt: new Date(T0 + i * 3_600_000),
      values: { output_tokens_per_s: (i < 40 ? 1000 : 960) * (1 + 0.01 * Math.sin(i * 2.7)) },
    }));
    const robustSteps = (profileThresholds?: { profileId: string; thresholds: Record<string, unknown> }) =>
      detectChangePoints(KEY, slower, { profileThresholds })
        .filter((c) => c.mode === 'robust' && c.metric === 'output_tokens_per_s')
        .map((c) => c.runIndex);
    expect(robustSteps()).toEqual([40]);
    expect(robustSteps({ profileId: 'p1', thresholds: { output_tokens_per_s: 0.05 } })).toEqual([]);
    expect(robustSteps({ profileId: 'p1', thresholds: { 'output_tokens_per_s.mean': 0.03 } })).toEqual([40]);
    // A key that is no metric is ignored, as comparisons ignore it.
    expect(robustSteps({ profileId: 'p1', thresholds: { nope: 0.5 } })).toEqual([40]);
  });

  const robust = throughput.find((c) => c.mode === 'robust')!;
  const row = (id: string, at: number, more: Partial<StoredChangePoint> = {}): StoredChangePoint => ({
    ...robust,
    id,
    runId: `run-${at}`,
    detectedAt: new Date(),
    updatedAt: new Date(),
    retractedAt: null,
    announcedMagnitude: null,
    ...more,
  });

  it('refines a stored change point of the series within 5 runs in place, whatever its kind now', () => {
    const drift = { ...robust, kind: 'drift' as const, runId: 'run-20', endRunId: 'run-39', runIndex: 20 };
    expect(identity.planChangePoints([row('moved', STEP - 5)], found, runs)).toMatchObject({
      updates: [{ id: 'moved', changePoint: { runId: `run-${STEP}` } }],
      retractions: [],
    });
    expect(identity.planChangePoints([row('step', STEP)], [drift], runs)).toMatchObject({
      updates: [{ id: 'step', changePoint: { kind: 'drift' } }],
      inserts: [],
    });
    // Six runs off is another change: the stored one is retracted, the found one inserted.
    const far = identity.planChangePoints([row('far', STEP - 6)], [robust], runs);
    expect(far).toEqual({ updates: [], inserts: [robust], retractions: ['far'] });
    // Another series or mode is never the same change.
    expect(
      identity.planChangePoints([row('otava', STEP, { mode: 'otava' })], [robust], runs).updates,
    ).toEqual([]);
  });

  it('keeps a stored change point it did not find when it still holds there, and retracts it otherwise', () => {
    const far = row('far', STEP - 10);
    expect(identity.planChangePoints([far], [robust], runs, () => true)).toMatchObject({
      retractions: [],
      updates: [],
    });
    expect(identity.planChangePoints([far], [robust], runs, () => false).retractions).toEqual(['far']);
  });

  it('revives a retracted change point rather than inserting a new one, preferring a live one', () => {
    const retracted = row('old', STEP, { retractedAt: new Date() });
    expect(identity.planChangePoints([retracted], [robust], runs).updates).toEqual([
      { id: 'old', changePoint: robust },
    ]);
    expect(identity.planChangePoints([retracted, row('live', STEP)], [robust], runs)).toMatchObject({
      updates: [{ id: 'live' }],
      retractions: [],
    });
  });

  it('announces a drift going on from a step as that step, not as a second change', () => {
    const step = row('step', STEP);
    const drift = row('drift', STEP, { kind: 'drift', endRunId: 'run-39' });
    expect(identity.newChanges([drift], [step], runs)).toEqual([]);
    expect(identity.newChanges([step, drift], [], runs)).toEqual([step]);
    expect(identity.newChanges([row('later', 35)], [step], runs).map((c) => c.id)).toEqual(['later']);
  });

  it('groups one change seen in several series of the pair, largest first, by mode and place', () => {
    const p50 = row('p50', STEP, { metric: 'itl', statistic: 'p50', magnitude: 0.1 });
    const p99 = row('p99', STEP + 2, { metric: 'itl', statistic: 'p99', magnitude: 0.3 });
    const later = row('later', STEP + 10, { metric: 'ttft', statistic: 'p50' });
    const otava = row('otava', STEP, { metric: 'itl', statistic: 'p50', mode: 'otava' });
    const groups = identity.sameChanges([p50, p99, later, otava], runs).map((g) => g.map((c) => c.id));
    expect(groups).toEqual([['p99', 'p50'], ['later'], ['otava']]);
  });

  it('lets a series that crosses its bar later join the change announced in another, not alert again', () => {
    const p50 = row('p50', STEP, { metric: 'ttft', statistic: 'p50', announcedMagnitude: 0.2 });
    const p99 = row('p99', STEP + 3, { metric: 'ttft', statistic: 'p99' });
    const elsewhere = row('elsewhere', STEP + 12, { metric: 'e2e', statistic: 'p50' });
    const otava = row('otava', STEP, { metric: 'ttft', statistic: 'p99', mode: 'otava' });
    expect(identity.joinedChanges([p99, elsewhere, otava], [p50], runs)).toEqual({
      news: [elsewhere, otava],
      joined: [p99],
    });
    // Joining needs an announced, live change: one never announced or retracted since is no anchor.
    const silent = { ...p50, announcedMagnitude: null };
    expect(identity.joinedChanges([p99], [silent], runs).news).toEqual([p99]);
    expect(identity.joinedChanges([p99], [{ ...p50, retractedAt: new Date() }], runs).news).toEqual([p99]);
  });

  it('judges an update material against the announced magnitude, not the last stored one', () => {
    const announced = row('a', STEP, { magnitude: -0.3, announcedMagnitude: -0.3 });
    expect(identity.changedMaterially(announced, { ...announced, magnitude: -0.35 })).toBe(false);
    expect(identity.changedMaterially(announced, { ...announced, magnitude: -0.4 })).toBe(true);
    expect(identity.changedMaterially(announced, { ...announced, kind: 'drift' })).toBe(true);
    expect(identity.changedMaterially({ ...announced, retractedAt: new Date() }, announced)).toBe(true);
    expect(
      identity.changedMaterially({ ...announced, announcedMagnitude: null }, { ...announced, magnitude: 1 }),
    ).toBe(false);
  });
});
