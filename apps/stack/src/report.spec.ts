import { HEADLINES, type HeadlineFigures } from '@teapot/contracts';
import type { RunView } from './api-client';
import { describeMethod, medianFigures, ratios, renderComparison, renderTable, renderTrend } from './report';

function run(figures: Partial<RunView>): RunView {
  return {
    id: 'run',
    profileId: 'profile',
    status: 'succeeded',
    error: null,
    errorClass: null,
    queuedAt: '2026-12-02T10:00:00Z',
    ...(Object.fromEntries(HEADLINES.map((h) => [h.field, null])) as HeadlineFigures),
    clientSaturated: false,
    transport: 'http1',
    measureVersion: '0.2.0',
    ...figures,
  };
}

describe('medianFigures', () => {
  it('takes the numpy-linear median of each figure over the runs that have it', () => {
    const figures = medianFigures([
      run({ itlP99Ms: 9, tpotP50Ms: 4, outputTokensPerS: 1000 }),
      run({ itlP99Ms: 7, tpotP50Ms: 6, outputTokensPerS: null }),
      run({ itlP99Ms: 30, tpotP50Ms: 5, outputTokensPerS: 3000 }),
      run({ itlP99Ms: 8, tpotP50Ms: 5 }),
    ]);
    // Even counts interpolate halfway between the two middle values.
    expect(figures.itlP99Ms).toBe(8.5);
    expect(figures.tpotP50Ms).toBe(5);
    expect(figures.outputTokensPerS).toBe(2000);
    expect(figures.ttftP50Ms).toBeNull();
  });
});

describe('ratios and renderTable', () => {
  const fp16 = medianFigures([
    run({ itlP99Ms: 20, tpotP50Ms: 6.4, ttftP50Ms: 70, outputTokensPerS: 1146.4 }),
  ]);
  const fp8 = medianFigures([
    run({ itlP99Ms: 12.5, tpotP50Ms: 3.2, ttftP50Ms: 35, outputTokensPerS: 2292.8 }),
  ]);

  it('divides candidate by baseline per figure, null where either is missing', () => {
    const ratio = ratios(fp8, fp16);
    expect(ratio.itlP99Ms).toBeCloseTo(0.625, 10);
    expect(ratio.tpotP50Ms).toBeCloseTo(0.5, 10);
    expect(ratio.outputTokensPerS).toBeCloseTo(2, 10);
    expect(ratio.ttftP99Ms).toBeNull();
  });

  it('prints one aligned row per endpoint and the ratio row', () => {
    const table = renderTable(
      [
        { endpoint: 'llama-8b-h100-fp16', quant: 'fp16', runs: 3, figures: fp16 },
        { endpoint: 'llama-8b-h100-fp8', quant: 'fp8', runs: 3, figures: fp8 },
      ],
      { label: 'FP8 / FP16', figures: ratios(fp8, fp16) },
    );
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^endpoint +quant +runs +P99 ITL ms +P50 TPOT ms +P99 TPOT ms +P50 TTFT ms +P99 TTFT ms +output tok\/s$/,
    );
    expect(lines[2].split(/ {2,}/)).toEqual([
      'llama-8b-h100-fp16',
      'fp16',
      '3',
      '20.00',
      '6.40',
      '-',
      '70.00',
      '-',
      '1,146',
    ]);
    expect(lines[3].split(/ {2,}/)).toEqual([
      'llama-8b-h100-fp8',
      'fp8',
      '3',
      '12.50',
      '3.20',
      '-',
      '35.00',
      '-',
      '2,293',
    ]);
    expect(lines[4].split(/ {2,}/)).toEqual(['FP8 / FP16', '0.63x', '0.50x', '-', '0.50x', '-', '2.00x']);
    // Right-aligned numbers: every row is as wide as the header.
    expect(new Set(lines.slice(0, 4).map((line) => line.length)).size).toBe(1);
  });
});

describe('renderTrend', () => {
  it('prints one line per series with each point and the runs it stands on', () => {
    const text = renderTrend({
      metric: 'itl',
      statistic: 'p99',
      unit: 'ms',
      excludedSaturatedRuns: 1,
      series: [
        {
          key: { weightQuant: 'fp16' },
          points: [
            { start: 'a', value: 20.5, runs: 1, samples: 9 },
            { start: 'b', value: null, runs: 1, samples: 0 },
          ],
        },
        { key: { weightQuant: 'fp8' }, points: [{ start: 'a', value: 12.25, runs: 2, samples: 9 }] },
      ],
    });
    expect(text).toBe(
      '  fp16: 20.50  - ms  (2 points, 2 runs)\n  fp8: 12.25 ms  (1 points, 2 runs)\n  (1 client-saturated runs left out)\n',
    );
    expect(
      renderTrend({
        metric: 'itl',
        statistic: 'p99',
        unit: 'ms',
        excludedSaturatedRuns: 0,
        series: [],
        reason: 'none',
      }),
    ).toBe('(no points: none)\n');
  });
});

describe('renderComparison', () => {
  it('prints each row with its change, interval, p-value and verdict, then the floor and the overall verdict', () => {
    const text = renderComparison(
      {
        baseline: { runs: 3 },
        candidate: { runs: 3 },
        resampling: { unit: 'requests', why: 'few runs' },
        metrics: [
          {
            metric: 'itl',
            statistic: 'p50',
            unit: 'ms',
            baseline: 6.5,
            candidate: 3.25,
            relativeDelta: -0.5,
            relativeCi: [-0.52, -0.48],
            pValue: 1e-9,
            verdict: 'improved',
          },
          {
            metric: 'ttft',
            statistic: 'p99',
            unit: 'ms',
            baseline: 30,
            candidate: 31,
            relativeDelta: 1 / 30,
            relativeCi: null,
            pValue: null,
            verdict: 'inconclusive',
            insufficient: 'baseline has 96 requests: p99 needs at least 1000',
          },
        ],
        roofline: {
          baseline: { floorMs: 4.794, tpotP50Ms: 6.4, achievedFraction: 0.749, gpu: 'h100-sxm' },
          candidate: { floorMs: null, tpotP50Ms: 3.3, achievedFraction: null, reason: 'no gpuModel' },
        },
        verdict: 'improved',
        notes: ['a note'],
      },
      { baseline: 'FP16', candidate: 'FP8' },
    );
    expect(text.split('\n')).toEqual([
      '            unit  FP16   FP8    change  95% interval      p (MWU)  verdict',
      '  P50 ITL   ms    6.50   3.25   -50.0%  [-52.0%, -48.0%]  <1e-4    improved',
      '  P99 TTFT  ms    30.00  31.00  +3.3%   -                 -        inconclusive (baseline has 96 requests: p99 needs at least 1000)',
      '  memory-bound TPOT floor (weight bytes / HBM bandwidth, h100-sxm): FP16 4.79 ms (P50 TPOT 6.40 ms: 75% of it); FP8 - (no gpuModel)',
      '  resampled: requests (few runs)',
      '  note: a note',
      '  overall: improved',
      '',
    ]);
  });
});

describe('describeMethod', () => {
  it('names the transport and measurement version of the runs, and says what a saturated client means', () => {
    expect(describeMethod([run({}), run({})])).toBe(
      'Measured with: http1 transport, @teapot/measure 0.2.0 (2 runs).\n',
    );
    const text = describeMethod([run({}), run({ transport: 'undici', clientSaturated: true })]);
    expect(text).toContain(
      'http1 transport, @teapot/measure 0.2.0 (1 run); undici transport, @teapot/measure 0.2.0 (1 run)',
    );
    expect(text).toContain(
      "Client saturated on 1 of 2 runs: the measuring client's token timestamps were late by more than 5 ms",
    );
  });
});
