import { METRICS, SWEEP_STATISTICS } from '@teapot/contracts/catalogue';
import {
  belowLowestSweeps,
  changePointMarkers,
  deploymentMarkers,
  formatTrendValue,
  seriesLabel,
  TREND_METRICS,
  trendAxisLabel,
  trendPlotData,
  xRange,
} from './trend';

const HOUR = 3600;
const t0 = Date.parse('2026-12-01T00:00:00.000Z') / 1000;
const at = (s: number) => new Date((t0 + s) * 1000).toISOString();
const point = (s: number, value: number | null) => ({
  start: at(s),
  value,
  runs: 1,
  requests: 16,
  tokens: 384,
  samples: 368,
  configVersions: [],
});

describe('trend shaping', () => {
  it('aligns series on the union of their buckets, null where a series has no point', () => {
    const plot = trendPlotData({
      bucket: 'hour',
      series: [
        { key: { endpoint: 'e1', weightQuant: 'fp8' }, points: [point(0, 5), point(HOUR, 6)] },
        { key: { endpoint: 'e1', weightQuant: 'fp16' }, points: [point(HOUR, 9), point(2 * HOUR, null)] },
      ],
    });
    expect(plot.data).toEqual([
      [t0, t0 + HOUR, t0 + 2 * HOUR],
      [5, 6, null],
      [null, 9, null],
    ]);
    expect(plot.spanGaps).toBe(false);
  });

  it('breaks the line across hour, day and week buckets that held no run', () => {
    const plot = trendPlotData({
      bucket: 'day',
      series: [{ key: {}, points: [point(0, 5), point(4 * 86_400, 7), point(5 * 86_400, 8)] }],
    });
    expect(plot.data).toEqual([
      [t0, t0 + 86_400, t0 + 4 * 86_400, t0 + 5 * 86_400],
      [5, null, 7, 8],
    ]);
  });

  it('joins a series across the other series runs when each point is a run', () => {
    const plot = trendPlotData({
      bucket: 'run',
      series: [
        { key: { weightQuant: 'fp8' }, points: [point(0, 5), point(600, 6)] },
        { key: { weightQuant: 'fp16' }, points: [point(300, 9)] },
      ],
    });
    expect(plot.data).toEqual([
      [t0, t0 + 300, t0 + 600],
      [5, null, 6],
      [null, 9, null],
    ]);
    expect(plot.spanGaps).toBe(true);
  });

  it('labels a series by its key, leaving out shared fields and naming ids', () => {
    expect(seriesLabel({ endpoint: 'e1', weightQuant: null }, ['endpoint'])).toBe('weightQuant unset');
    expect(seriesLabel({ profile: 'p1', chunkedPrefill: false }, [], { p1: 'chat-c4' })).toBe(
      'profile chat-c4 · chunkedPrefill false',
    );
    expect(seriesLabel({ endpoint: 'e1' }, ['endpoint'])).toBe('all runs');
  });

  it('draws nothing for a trend without series', () => {
    expect(trendPlotData({ bucket: 'week', series: [] }).data).toEqual([[]]);
  });

  it('formats values by unit and statistic', () => {
    expect(formatTrendValue(12.345, 'ms', 'p99')).toBe('12.3 ms');
    expect(formatTrendValue(1234.5, 'tokens/s', 'mean')).toBe('1235 tokens/s');
    expect(formatTrendValue(0.0213, 'fraction', 'mean')).toBe('2.13 %');
    expect(formatTrendValue(2.314, 'ms', 'p99/p50')).toBe('2.31×');
    expect(formatTrendValue(null, 'ms', 'p99')).toBe('–');
  });

  it('offers each metric the statistics of the catalogue, the ITL tail ratio only to ITL', () => {
    for (const metric of TREND_METRICS.filter((m) => !m.ofSweeps))
      expect(metric.statistics).toEqual(METRICS[metric.name as keyof typeof METRICS].statistics);
    const offering = TREND_METRICS.filter((m) => m.statistics.includes('p99/p50')).map((m) => m.name);
    expect(offering).toEqual(['itl']);
  });

  it('offers capacity and cost per Mtok as sweep figures, with the median and mean only', () => {
    const sweeps = TREND_METRICS.filter((m) => m.ofSweeps);
    expect(sweeps.map((m) => [m.name, m.statistics])).toEqual([
      ['capacity', ['p50', 'mean']],
      ['cost_per_mtok', ['p50', 'mean']],
    ]);
    expect(SWEEP_STATISTICS).toEqual(['p50', 'mean']);
  });

  it('counts the sweeps that missed the SLO at their lowest load over every series and bucket', () => {
    const trend = {
      bucket: 'day' as const,
      series: [
        {
          key: {},
          points: [
            { ...point(0, null), belowLowest: 2 },
            { ...point(HOUR, 30), belowLowest: 0 },
          ],
        },
        { key: {}, points: [point(0, 5), { ...point(HOUR, null), belowLowest: 1 }] },
      ],
    };
    expect(belowLowestSweeps(trend)).toBe(3);
  });

  it('titles the value axis with the unit, a ratio with its label', () => {
    expect(trendAxisLabel('p99', 'ms')).toBe('p99 (ms)');
    expect(trendAxisLabel('mean', 'tokens/s')).toBe('mean (tokens/s)');
    expect(trendAxisLabel('p99/p50', 'ratio')).toBe('P99 / P50');
  });

  it('offers only pooled means for rates', () => {
    for (const metric of TREND_METRICS.filter((m) => m.name.endsWith('_s') || m.name === 'error_rate'))
      expect(metric.statistics).toEqual(['mean']);
  });
});

describe('deployment markers', () => {
  it('places each deployment at its effective time, oldest first, labelled with its verdict', () => {
    const markers = deploymentMarkers([
      { effectiveAt: at(600), label: 'chunked prefill off', verdict: 'pending' },
      { effectiveAt: at(0), label: 'moved to FP16 weights', verdict: 'regressed' },
    ]);
    expect(markers).toEqual([
      { x: t0, label: 'moved to FP16 weights (regressed)' },
      { x: t0 + 600, label: 'chunked prefill off (pending)' },
    ]);
  });

  it('widens the x range to the markers outside the points', () => {
    expect(xRange([t0 + 100, t0 + 200], [{ x: t0, label: 'd' }])).toEqual([t0 - 6, t0 + 206]);
    expect(xRange([], [])).toBeNull();
    expect(xRange([t0], [])).toEqual([t0 - 60, t0 + 60]);
  });
});

describe('change point markers', () => {
  const change = (over: Record<string, unknown>) =>
    ({
      at: at(2 * HOUR),
      endAt: null,
      kind: 'step',
      mode: 'robust',
      unit: 'ms',
      statistic: 'p99',
      meanBefore: 11.9,
      meanAfter: 14.3,
      magnitude: 0.2017,
      pValue: 1.234e-9,
      profileId: 'a1b2c3d4-0000-4000-8000-000000000000',
      attribution: { explained: true, summary: "coincides with deployment 'moved to FP8'" },
      ...over,
    }) as Parameters<typeof changePointMarkers>[0][number];

  it('places a step at its first run and a drift over its runs, oldest first, with what changed and what it coincides with', () => {
    const markers = changePointMarkers(
      [
        change({
          kind: 'drift',
          at: at(5 * HOUR),
          endAt: at(7 * HOUR),
          magnitude: -0.1,
          meanAfter: 10.7,
          attribution: { explained: false, summary: 'no recorded change: unexplained' },
        }),
        change({}),
      ],
      { 'a1b2c3d4-0000-4000-8000-000000000000': 'chat-c4' },
    );
    expect(markers).toEqual([
      {
        x: t0 + 2 * HOUR,
        endX: null,
        kind: 'step',
        label: '+20% step',
        detail: '11.9 ms → 14.3 ms (+20%), step in profile chat-c4, robust p = 1.2e-9',
        attribution: "coincides with deployment 'moved to FP8'",
        explained: true,
      },
      {
        x: t0 + 5 * HOUR,
        endX: t0 + 7 * HOUR,
        kind: 'drift',
        label: '-10% drift, unexplained',
        detail: '11.9 ms → 10.7 ms (-10%), drift in profile chat-c4, robust p = 1.2e-9',
        attribution: 'no recorded change: unexplained',
        explained: false,
      },
    ]);
  });

  it('names an unknown profile by the start of its id, and a rate by its unit', () => {
    const [marker] = changePointMarkers([
      change({ unit: 'tokens/s', statistic: 'mean', meanBefore: 812, meanAfter: 640, magnitude: -0.2118 }),
    ]);
    expect(marker.detail).toBe(
      '812 tokens/s → 640 tokens/s (-21%), step in profile a1b2c3d4, robust p = 1.2e-9',
    );
  });
});
