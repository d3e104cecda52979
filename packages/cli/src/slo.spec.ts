import { evaluateSlos, parseSlo, requestSlo } from './slo';
import { distribution, knownSummary } from './test-support/summary';

describe('parseSlo', () => {
  it('reads latency ceilings for every metric and statistic', () => {
    expect(parseSlo('itl_p99_ms=50')).toEqual({
      kind: 'latency',
      name: 'itl_p99_ms',
      metric: 'itl',
      stat: 'p99',
      maxMs: 50,
    });
    expect(parseSlo('ttft_p999_ms=250.5')).toMatchObject({ metric: 'ttft', stat: 'p999', maxMs: 250.5 });
    for (const metric of ['ttft', 'tpot', 'itl', 'e2e'])
      for (const stat of ['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'max'])
        expect(parseSlo(`${metric}_${stat}_ms=1`)).toMatchObject({ metric, stat });
  });

  it('reads throughput floors', () => {
    expect(parseSlo('output_tokens_per_s=1000')).toEqual({
      kind: 'throughput',
      name: 'output_tokens_per_s',
      metric: 'output_tokens_per_s',
      min: 1000,
    });
    expect(parseSlo('requests_per_s=2.5')).toMatchObject({ kind: 'throughput', min: 2.5 });
  });

  it.each([
    'itl_p99_ms',
    'itl_p99_ms=',
    'itl_p99_ms=-3',
    'itl_p99_ms=Infinity',
    'itl_p99=5',
    'itl_p100_ms=5',
    'ITL_P99_MS=5',
  ])('rejects %j', (spec) => expect(() => parseSlo(spec)).toThrow(/--slo/));
});

describe('evaluateSlos', () => {
  const summary = knownSummary();

  it('passes a latency ceiling at or above the figure and fails one below it', () => {
    const verdicts = evaluateSlos(
      [
        parseSlo('itl_p99_ms=12.5'),
        parseSlo('itl_p99_ms=12.49'),
        parseSlo('ttft_p90_ms=55.5'),
        parseSlo('e2e_mean_ms=1'),
      ],
      summary,
    );
    expect(verdicts.map((v) => [v.actual, v.pass])).toEqual([
      [12.5, true],
      [12.5, false],
      [55.5, true],
      [summary.e2eMs!.mean, false],
    ]);
  });

  it('passes a throughput floor at or below the figure and fails one above it', () => {
    const verdicts = evaluateSlos(
      [
        parseSlo('output_tokens_per_s=1234.56'),
        parseSlo('output_tokens_per_s=1300'),
        parseSlo('requests_per_s=9'),
      ],
      summary,
    );
    expect(verdicts.map((v) => [v.actual, v.pass])).toEqual([
      [1234.56, true],
      [1234.56, false],
      [9.75, true],
    ]);
  });

  it('fails every gate with no data when no request succeeded', () => {
    const failed = knownSummary({
      requests: { total: 8, succeeded: 0, failed: 8, incomplete: 0, warmup: 0 },
      itlMs: null,
      tpotMs: distribution(1, { count: 0 }),
      outputTokensPerS: 0,
    });
    const verdicts = evaluateSlos(
      [parseSlo('itl_p99_ms=1000'), parseSlo('tpot_p50_ms=1000'), parseSlo('requests_per_s=0.001')],
      failed,
    );
    expect(verdicts.map((v) => [v.actual, v.pass])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
  });
});

describe('requestSlo', () => {
  it('is undefined without latency gates', () => {
    expect(requestSlo([])).toBeUndefined();
    expect(requestSlo([parseSlo('output_tokens_per_s=10')])).toBeUndefined();
  });

  it('takes each metric’s loosest ceiling as the per-request objective for goodput', () => {
    const gates = [
      'ttft_p50_ms=100',
      'ttft_p99_ms=400',
      'itl_p99_ms=50',
      'tpot_mean_ms=20',
      'e2e_p90_ms=3000',
    ].map(parseSlo);
    expect(requestSlo(gates)).toEqual({ ttftMs: 400, itlMs: 50, tpotMs: 20, e2eMs: 3000 });
  });
});
