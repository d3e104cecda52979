import {
  buildHistograms,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigValue,
  type RunDetail,
  type SelectedRun,
  type ServingConfigField,
  type StoredHistogram,
} from '@teapot/db';
import { syntheticRunResult } from '@teapot/db/testing';
import { compare, type Comparison, type ComparisonOptions, type LoadedSide } from './compare';
import { checkComparisonQuery } from './comparison-query';

const SNAPSHOT = { workload: { kind: 'synthetic', inputTokens: 512, outputTokens: 64 } };
const NO_CONFIG = Object.fromEntries(SERVING_CONFIG_FIELD_NAMES.map((field) => [field, null])) as Record<
  ServingConfigField,
  ConfigValue
>;

/** A side of `runs` synthetic runs built in memory, as the loader would hand it over (runs resampled). */
function side(name: string, runs: number, gapScale: number, profileId: string | null = null): LoadedSide {
  const selected: SelectedRun[] = [];
  const details = new Map<string, RunDetail>();
  const histograms: StoredHistogram[] = [];
  for (let i = 0; i < runs; i++) {
    const id = `${name}-${i}`;
    const result = syntheticRunResult({ requests: 40, tokensPerRequest: 64, seed: 1 + i, gapScale });
    selected.push({
      id,
      endpointId: 'endpoint',
      profileId,
      configId: null,
      configVersion: 1,
      trigger: 'schedule',
      clientSaturated: false,
      startedAt: new Date(Date.UTC(2026, 10, 2, i)),
      requests: result.requests.length,
      tokens: result.summary.outputTokens,
      config: NO_CONFIG,
    });
    details.set(id, { snapshot: SNAPSHOT, summary: result.summary, model: 'llama-8b', extra: null });
    for (const [metric, histogram] of Object.entries(buildHistograms(result.requests))) {
      if (histogram.count > 0) histograms.push({ runId: id, metric: metric as 'itl', histogram });
    }
  }
  return { runs: selected, excludedSaturated: 0, details, histograms };
}

function optionsOf(overrides: Partial<ComparisonOptions> = {}): ComparisonOptions {
  const {
    baseline: _b,
    candidate: _c,
    ...checked
  } = checkComparisonQuery({
    baseline: { runIds: ['00000000-0000-0000-0000-000000000001'] },
    candidate: { runIds: ['00000000-0000-0000-0000-000000000002'] },
    metrics: ['itl', 'tpot', 'output_tokens_per_s'],
    statistics: ['p50', 'p99'],
    iterations: 300,
  });
  return { ...checked, named: {}, profileThresholds: [], ...overrides };
}

const rowOf = (comparison: Comparison, metric: string, statistic: string) =>
  comparison.metrics.find((row) => row.metric === metric && row.statistic === statistic);

describe('compare over loaded sides (no database)', () => {
  it('calls a 40% slower candidate regressed and an identical one unchanged, resampling runs', () => {
    const baseline = side('base', 12, 1);
    const slower = compare(baseline, side('slow', 12, 1.4), optionsOf());
    expect(slower.resampling.unit).toBe('runs');
    expect(rowOf(slower, 'itl', 'p50')?.verdict).toBe('regressed');
    expect(rowOf(slower, 'itl', 'p50')?.relativeDelta).toBeGreaterThan(0.3);
    expect(rowOf(slower, 'output_tokens_per_s', 'mean')?.verdict).toBe('regressed');
    expect(slower.verdict).toBe('regressed');
    expect(slower.roofline?.baseline.tpotP50Ms).toBeCloseTo(rowOf(slower, 'tpot', 'p50')!.baseline!, 9);
    expect(slower.distributions?.candidate.samples).toBe(12 * 40 * 63);

    const same = compare(baseline, side('same', 12, 1), optionsOf());
    expect(rowOf(same, 'itl', 'p50')?.verdict).toBe('unchanged');
    expect(same.workload.same).toBe(true);
  });

  it('gives the same answer twice over the same loaded sides and seed (it leaves them as they were)', () => {
    const baseline = side('base', 10, 1);
    const candidate = side('cand', 10, 1.1);
    expect(compare(baseline, candidate, optionsOf())).toEqual(compare(baseline, candidate, optionsOf()));
  });

  it("takes the profiles' strictest threshold for rows the request leaves open, and says so", () => {
    const options = optionsOf({
      profileThresholds: [
        { profileId: 'p1', thresholds: { 'itl.p50': 0.5 } },
        { profileId: 'p2', thresholds: { 'itl.p50': 0.6, retired_metric: 1 } },
      ],
    });
    const comparison = compare(side('base', 12, 1, 'p1'), side('slow', 12, 1.4, 'p2'), options);
    expect(rowOf(comparison, 'itl', 'p50')?.threshold).toEqual({
      value: 0.5,
      kind: 'relative',
      source: 'profile',
      profileId: 'p1',
    });
    // A 40% slowdown within the profile's 50%: no change that matters (the default 5% calls it regressed).
    expect(rowOf(comparison, 'itl', 'p50')?.verdict).toBe('unchanged');
    expect(comparison.notes.join('\n')).toContain(
      'the profiles set different thresholds for itl.p50 (0.5, 0.6)',
    );
  });

  it('answers without rows when a side has no run, and needs requests loaded to resample them', () => {
    const empty = compare(side('base', 3, 1), side('none', 0, 1), optionsOf());
    expect(empty.reason).toBe('candidate: no measured run matches');
    expect(empty.metrics).toEqual([]);
    expect(() => compare(side('base', 3, 1), side('few', 3, 1), optionsOf())).toThrow(
      /requests of both sides loaded/,
    );
  });
});
