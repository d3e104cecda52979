import {
  cdfPlotData,
  comparisonQuery,
  comparisonRows,
  emptySide,
  hasComparison,
  sideBody,
  sideFromQuery,
} from './compare';

const row = (over: Record<string, unknown>) =>
  ({
    metric: 'itl',
    statistic: 'p99',
    unit: 'ms',
    weighting: 'token',
    direction: 'lower-is-better',
    baseline: 20,
    candidate: 15,
    delta: -5,
    relativeDelta: -0.25,
    ci: [-6, -4],
    relativeCi: [-0.3, -0.2],
    resample: 'requests',
    samples: { baseline: 1000, candidate: 1000 },
    pValue: 1e-9,
    pValueOver: 'requests',
    threshold: { value: 0.05, kind: 'relative', source: 'default' },
    verdict: 'improved',
    ...over,
  }) as Parameters<typeof comparisonRows>[0][number];

describe('compare shaping', () => {
  it('round-trips both sides through the URL, leaving unset fields out', () => {
    const baseline = { ...emptySide(), endpointId: 'e1', value: 'fp16' };
    const candidate = { ...emptySide(), runIds: 'r1, r2' };
    const query = comparisonQuery({ baseline, candidate });
    expect(query).toEqual({
      'baseline.endpointId': 'e1',
      'baseline.field': 'weightQuant',
      'baseline.value': 'fp16',
      'candidate.runIds': 'r1, r2',
    });
    const search = new URLSearchParams(query);
    expect(hasComparison(search)).toBe(true);
    expect(hasComparison(new URLSearchParams())).toBe(false);
    expect(sideFromQuery(search, 'baseline')).toEqual(baseline);
    expect(sideFromQuery(search, 'candidate')).toEqual(candidate);
  });

  it('makes a side of configuration values typed by field, over the last 7 days by default', () => {
    const now = new Date('2026-12-03T00:00:00.000Z');
    expect(sideBody({ ...emptySide(), endpointId: 'e1', value: 'fp8' }, false, now)).toEqual({
      from: '2026-11-26T00:00:00.000Z',
      endpointIds: ['e1'],
      config: { weightQuant: ['fp8'] },
    });
    expect(sideBody({ ...emptySide(), field: 'gpuCount', value: '2' }, true, now).config).toEqual({
      gpuCount: [2],
    });
    expect(sideBody({ ...emptySide(), field: 'chunkedPrefill', value: 'false' }, false, now).config).toEqual({
      chunkedPrefill: [false],
    });
    expect(sideBody({ ...emptySide(), value: 'unset' }, false, now).config).toEqual({ weightQuant: [null] });
    expect(sideBody({ ...emptySide() }, true, now).includeSaturated).toBe(true);
  });

  it('makes a side of run ids without a window, and a window of explicit times', () => {
    expect(sideBody({ ...emptySide(), runIds: 'r1,r2\nr3' }, false)).toEqual({ runIds: ['r1', 'r2', 'r3'] });
    expect(
      sideBody({ ...emptySide(), from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' }, false),
    ).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-08T00:00:00.000Z' });
  });

  it('reads a row as values, change, relative interval, p-value and verdict', () => {
    expect(comparisonRows([row({})])).toEqual([
      {
        key: 'itl.p99',
        metric: 'ITL p99',
        baseline: '20 ms',
        candidate: '15 ms',
        change: '-5 ms (-25 %)',
        interval: '-30 % … -20 %',
        pValue: '< 0.0001',
        verdict: 'improved',
      },
    ]);
  });

  it('keeps error-rate changes absolute and says why a row has no interval', () => {
    const [errors, thin] = comparisonRows([
      row({
        metric: 'error_rate',
        statistic: 'mean',
        unit: 'fraction',
        weighting: 'run',
        baseline: 0.01,
        candidate: 0.03,
        delta: 0.02,
        relativeDelta: 2,
        ci: [0.01, 0.03],
        relativeCi: null,
        pValue: 0.012,
        threshold: { value: 0.01, kind: 'absolute', source: 'default' },
        verdict: 'regressed',
      }),
      row({
        ci: null,
        relativeCi: null,
        pValue: null,
        insufficient: 'candidate has 96 requests',
        verdict: 'inconclusive',
      }),
    ]);
    expect([errors.metric, errors.change, errors.interval, errors.pValue]).toEqual([
      'error rate',
      '+2 %',
      '+1 % … +3 %',
      '0.012',
    ]);
    expect([thin.interval, thin.pValue, thin.verdict]).toEqual([
      'candidate has 96 requests',
      '–',
      'inconclusive',
    ]);
  });
});

describe('cdfPlotData', () => {
  const side = (samples: number, points: Array<[number, number]>) => ({
    samples,
    points: points.map(([value, fraction]) => ({ value, fraction })),
  });
  /** The plot data of two sides' ITL distributions, in ms. */
  const itlPlot = (baseline: ReturnType<typeof side>, candidate: ReturnType<typeof side>) =>
    cdfPlotData({ metric: 'itl', unit: 'ms', baseline, candidate });

  it('puts both CDFs on one sorted x, each null where only the other has a point', () => {
    const plot = itlPlot(
      side(1200, [
        [5, 0],
        [6, 0.5],
        [9, 1],
      ]),
      side(34000, [
        [4, 0],
        [6, 0.7],
        [7.5, 1],
      ]),
    );
    expect(plot?.data).toEqual([
      [4, 5, 6, 7.5, 9],
      [null, 0, 0.5, null, 1],
      [0, null, 0.7, 1, null],
    ]);
    expect(plot?.labels).toEqual(['baseline (1,200 tokens)', 'candidate (34,000 tokens)']);
  });

  it('leaves zero out (a log axis has no place for it) and draws nothing when a side is empty', () => {
    const plot = itlPlot(
      side(10, [
        [0, 0.2],
        [3, 1],
      ]),
      side(10, [[2, 1]]),
    );
    expect(plot?.data).toEqual([
      [2, 3],
      [null, 1],
      [1, null],
    ]);
    expect(itlPlot(side(0, []), side(10, [[2, 1]]))).toBeNull();
  });
});
