import { capacitySloSchema, SLO_PRESETS, sweepSpecSchema } from './sweeps';

function issueOf(result: {
  success: boolean;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}) {
  const issue = result.error?.issues[0];
  return issue ? `${issue.path.join('.')}: ${issue.message}` : 'ok';
}

describe('capacitySloSchema', () => {
  it('expands a preset into its targets and keeps its name', () => {
    const slo = capacitySloSchema.parse({ preset: 'mlperf-llama3.1-8b-interactive' });
    expect(slo).toEqual(SLO_PRESETS['mlperf-llama3.1-8b-interactive']);
    expect(slo.targets).toEqual([
      { metric: 'ttft', percentile: 99, limitMs: 500 },
      { metric: 'tpot', percentile: 99, limitMs: 30 },
    ]);
  });

  it('lets own targets replace a preset’s, and keeps a goodput share', () => {
    const slo = capacitySloSchema.parse({
      preset: 'mlperf-llama2-70b-server',
      targets: [{ metric: 'itl', percentile: 99.9, limitMs: 80 }],
      minGoodShare: 0.9,
    });
    expect(slo).toEqual({
      preset: 'mlperf-llama2-70b-server',
      targets: [{ metric: 'itl', percentile: 99.9, limitMs: 80 }],
      minGoodShare: 0.9,
    });
  });

  it.each([
    [{}, 'targets: an SLO needs at least one target or a preset'],
    [{ targets: [] }, 'targets: an SLO needs at least one target or a preset'],
    [{ preset: 'nope' }, 'preset: unknown SLO preset "nope"'],
    [{ targets: [{ metric: 'ttft', percentile: 98, limitMs: 100 }] }, 'targets.0.percentile'],
    [{ targets: [{ metric: 'ttft', percentile: 99, limitMs: 0 }] }, 'targets.0.limitMs'],
    [
      {
        targets: [
          { metric: 'ttft', percentile: 99, limitMs: 1 },
          { metric: 'ttft', percentile: 99, limitMs: 2 },
        ],
      },
      'targets.1: ttft.p99 is bounded twice',
    ],
    [{ preset: 'mlperf-llama2-70b-server', minGoodShare: 0 }, 'minGoodShare'],
  ])('refuses %j naming the field', (input, expected) => {
    expect(issueOf(capacitySloSchema.safeParse(input))).toContain(expected);
  });
});

describe('sweepSpecSchema', () => {
  it('fills a capacity search’s defaults', () => {
    const spec = sweepSpecSchema.parse({
      kind: 'capacity',
      dimension: 'rate',
      slo: { preset: 'mlperf-llama3.1-8b-server' },
      lowest: 1,
      highest: 64,
    });
    expect(spec).toMatchObject({ tolerance: 0.05, maxPoints: 8 });
  });

  it.each([
    [{ kind: 'points', dimension: 'rate', points: [] }, 'points'],
    [{ kind: 'points', dimension: 'rate', points: [1, 4, 2] }, 'points.2: points must be strictly ascending'],
    [{ kind: 'points', dimension: 'rate', points: [1, 1] }, 'points.1: points must be strictly ascending'],
    [{ kind: 'points', dimension: 'rate', points: [0, 1] }, 'points.0'],
    [{ kind: 'points', dimension: 'rate', points: [-2, 1] }, 'points.0'],
    [{ kind: 'points', dimension: 'speed', points: [1] }, 'dimension'],
    [{ kind: 'capacity', dimension: 'rate', slo: {}, lowest: 1, highest: 2 }, 'slo.targets'],
    [{ kind: 'capacity', dimension: 'rate', slo: { preset: 'x' }, lowest: 1, highest: 2 }, 'slo.preset'],
    [
      {
        kind: 'capacity',
        dimension: 'rate',
        slo: { preset: 'mlperf-llama2-70b-server' },
        lowest: 4,
        highest: 2,
      },
      'highest: highest must be above lowest',
    ],
  ])('refuses %j naming the field', (input, expected) => {
    expect(issueOf(sweepSpecSchema.safeParse(input))).toContain(expected);
  });
});
