import {
  LatencyHistogram,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigValue,
  type RollupBucket,
  type SelectedRun,
  type ServingConfigField,
} from '@teapot/db';
import { trendOf, type LoadedTrend } from './trend-points';

const DAY = Date.UTC(2026, 10, 2);
const HOUR = 3_600_000;
const NO_CONFIG = Object.fromEntries(SERVING_CONFIG_FIELD_NAMES.map((field) => [field, null])) as Record<
  ServingConfigField,
  ConfigValue
>;

function histogramOf(values: number[]): LatencyHistogram {
  const histogram = new LatencyHistogram();
  for (const value of values) histogram.record(value);
  return histogram;
}

function run(id: string, at: number, endpointId = 'e1'): SelectedRun {
  return {
    id,
    endpointId,
    profileId: 'p1',
    configId: 'c1',
    configVersion: 1,
    trigger: 'schedule',
    clientSaturated: false,
    startedAt: new Date(at),
    requests: 10,
    tokens: 100,
    config: NO_CONFIG,
  };
}

function bucket(at: number, values: number[], saturated = false): RollupBucket {
  return {
    bucketStart: new Date(at),
    endpointId: 'e1',
    profileId: 'p1',
    configVersion: 1,
    clientSaturated: saturated,
    runs: 3,
    requests: 30,
    tokens: 300,
    samples: 3,
    encoded: histogramOf(values).encode(),
    numerator: null,
    denominator: null,
    config: {},
  };
}

const query = {
  metric: 'itl' as const,
  statistic: 'p50' as const,
  bucket: 'day' as const,
  groupBy: ['endpoint' as const],
  from: new Date(DAY),
  to: new Date(DAY + 2 * 24 * HOUR),
};

describe('trendOf (no database)', () => {
  it("merges a day's rollup rows and runs into one point over all their samples", () => {
    const loaded: LoadedTrend = {
      runs: [
        {
          run: run('r1', DAY + 23 * HOUR + 1_000),
          samples: { kind: 'histogram', encoded: histogramOf([9_000]).encode() },
        },
      ],
      rollups: [bucket(DAY, [1_000, 1_000, 1_000, 1_000]), bucket(DAY + HOUR, [9_000, 9_000])],
      excludedSaturatedRuns: 0,
    };
    const trend = trendOf(query, loaded);
    expect(trend.read).toEqual({ rollupRows: 2, runs: 1 });
    expect(trend.series).toHaveLength(1);
    const [point] = trend.series[0].points;
    expect(point).toMatchObject({ start: new Date(DAY), runs: 7, requests: 70, tokens: 700, samples: 7 });
    // The median of 4 x 1 ms and 3 x 9 ms pooled, not the 5 ms a mean of per-source medians gives.
    expect(point.value).toBeCloseTo(1, 1);
    expect(point.configVersions).toEqual([{ endpointId: 'e1', version: 1 }]);
  });

  it('leaves saturated rollup rows out and counts their runs, unless the query keeps them', () => {
    const loaded: LoadedTrend = {
      runs: [],
      rollups: [bucket(DAY, [2_000], true)],
      excludedSaturatedRuns: 2,
    };
    const left = trendOf(query, loaded);
    expect(left.series).toEqual([]);
    expect(left.excludedSaturatedRuns).toBe(5);
    expect(left.reason).toBe('no measured run matches the selection (5 client-saturated runs left out)');
    const kept = trendOf({ ...query, includeSaturated: true }, loaded);
    expect(kept.series[0].points[0].value).toBeCloseTo(2, 1);
  });

  it('pools a rate over runs and rows: the sum of numerators over the sum of denominators', () => {
    const rateRow = { ...bucket(DAY, []), encoded: null, numerator: 300, denominator: 10, samples: 3 };
    const loaded: LoadedTrend = {
      runs: [{ run: run('r1', DAY + HOUR), samples: { kind: 'totals', numerator: 100, denominator: 10 } }],
      rollups: [rateRow],
      excludedSaturatedRuns: 0,
    };
    const trend = trendOf({ ...query, metric: 'output_tokens_per_s', statistic: 'mean' }, loaded);
    expect(trend.series[0].points[0]).toMatchObject({ value: 20, samples: 4 });
  });
});
