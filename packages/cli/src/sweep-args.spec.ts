import { UsageError } from '@teapot/command-line';
import { autoRequests, parseSweepArgs } from './sweep-args';

describe('parseSweepArgs', () => {
  it('builds a capacity search from a preset, with the schema’s defaults', () => {
    const args = parseSweepArgs(['--slo-preset', 'mlperf-llama3.1-8b-server', '--highest', '32']);
    expect(args.spec).toEqual({
      kind: 'capacity',
      dimension: 'rate',
      slo: {
        preset: 'mlperf-llama3.1-8b-server',
        targets: [
          { metric: 'ttft', percentile: 99, limitMs: 2000 },
          { metric: 'tpot', percentile: 99, limitMs: 100 },
        ],
      },
      lowest: 1,
      highest: 32,
      tolerance: 0.05,
      maxPoints: 8,
    });
    expect(args.autoRequests).toBe(true);
    // the built-in simulator's GPUs are its tensor parallelism; no price, no cost
    expect(args.cost).toEqual({ gpus: 1, usdPerGpuHour: null });
  });

  it('takes --slo latency gates as the SLO’s targets, and a listed sweep’s points', () => {
    const args = parseSweepArgs([
      '--points',
      '2, 4,8',
      '--dimension',
      'concurrency',
      '--slo',
      'itl_p999_ms=80',
      '--min-good-share',
      '0.9',
      '--requests',
      '50',
    ]);
    expect(args.spec).toEqual({
      kind: 'points',
      dimension: 'concurrency',
      points: [2, 4, 8],
      slo: { targets: [{ metric: 'itl', percentile: 99.9, limitMs: 80 }], minGoodShare: 0.9 },
    });
    expect(args.autoRequests).toBe(false);
    expect(args.bench.slos).toEqual([]);
  });

  it.each([
    ['--points 4,2', '--points: points must be strictly ascending: 2 follows 4'],
    ['--points 2,2', '--points: points must be strictly ascending'],
    ['--points 0,2', '--points'],
    ['--points 1,x', '--points: expected numbers separated by commas'],
    ['--slo-preset nope', '--slo-preset: unknown SLO preset "nope"'],
    ['', '--slo: an SLO needs at least one target or a preset'],
    [
      '--slo-preset mlperf-llama2-70b-server --lowest 8 --highest 4',
      '--highest: highest must be above lowest',
    ],
    ['--slo ttft_mean_ms=100', "--slo ttft_mean_ms: a sweep's SLO bounds a latency percentile"],
    ['--slo output_tokens_per_s=100', '--slo output_tokens_per_s'],
    ['--concurrency 8', '--concurrency: a sweep sets the load of each point'],
    ['--rate 8', '--rate: a sweep sets the load'],
    [
      '--points 1,2 --trace t.jsonl',
      '--trace: a trace brings its own arrival times, which a sweep cannot vary',
    ],
    ['--points 1,2 --lowest 1', '--lowest belongs to a capacity search'],
    ['--slo-preset mlperf-llama2-70b-server --min-good-share 1.5', '--min-good-share'],
    ['--slo-preset mlperf-llama2-70b-server --dimension speed', '--dimension'],
    ['--dimension concurrency --arrival gamma --points 1', '--arrival shapes open-loop arrivals'],
    ['--points 1 --gpus 1.5', '--gpus: expected a whole number'],
  ])('`teapot sweep %s` -> a usage error naming the flag', (line, message) => {
    const argv = line === '' ? [] : line.split(' ');
    expect(() => parseSweepArgs(argv)).toThrow(UsageError);
    expect(() => parseSweepArgs(argv)).toThrow(message);
  });

  it('sends about 12 s of arrivals per rate point, 8 rounds per stream, within bounds', () => {
    expect(autoRequests({ dimension: 'rate' }, 1)).toBe(40);
    expect(autoRequests({ dimension: 'rate' }, 10)).toBe(120);
    expect(autoRequests({ dimension: 'rate' }, 500)).toBe(600);
    expect(autoRequests({ dimension: 'concurrency' }, 16)).toBe(128);
  });
});
