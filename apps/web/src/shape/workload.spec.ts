import { workloadView } from './workload';

const ttft = (count: number, p50: number) => ({
  count,
  mean: p50,
  std: 0,
  min: p50,
  max: p50,
  p50,
  p90: p50,
  p95: p50,
  p99: p50,
  p999: p50,
});

describe('workload shaping', () => {
  it('says what a dataset run sent and gives TTFT by turn, first and later turns first', () => {
    const view = workloadView(
      {
        workload: {
          kind: 'dataset-asset',
          sha256: 'ab'.repeat(32),
          format: 'sharegpt',
          sample: 4,
          thinkTime: { distribution: 'exponential', meanMs: 1500 },
        },
      },
      {
        workload: {
          kind: 'conversations',
          sessions: 4,
          promptTokens: 1000,
          reusablePromptTokens: 250,
          expectedReuseShare: 0.25,
          dataset: { sha256: 'ab'.repeat(32), format: 'sharegpt', read: 32, kept: 30, sampled: 4, turns: 9 },
        },
        turns: {
          byTurn: [
            { turn: 0, ttftMs: ttft(4, 20) },
            { turn: 1, ttftMs: ttft(4, 12) },
          ],
          firstTtftMs: ttft(4, 20),
          laterTtftMs: ttft(5, 11),
        },
      },
    );
    expect(view.facts).toEqual([
      `sharegpt dataset ${'ab'.repeat(32)}, every conversation a session (sample 4)`,
      'exponential think time of mean 1500 ms · answers not the model’s own',
      '4 sessions started · 4 of 32 conversations sent (30 through the filters, 9 turns) · 1000 prompt tokens sent · ' +
        "25.0% of them repeat an earlier prompt's start (what a prefix cache could reuse)",
    ]);
    expect(view.turns.map((t) => [t.label, t.count, t.p50])).toEqual([
      ['first turns', 4, '20 ms'],
      ['later turns', 5, '11 ms'],
      ['turn 0', 4, '20 ms'],
      ['turn 1', 4, '12 ms'],
    ]);
  });

  it('describes single-turn workloads without a turn table, and runs without a summary', () => {
    const prefix = {
      kind: 'shared-prefix',
      prefixes: 2,
      prefixTokens: 64,
      requestsPerPrefix: 3,
      suffixTokens: 8,
      outputTokens: 4,
    };
    expect(workloadView({ workload: prefix }, null)).toEqual({
      facts: [
        'shared prefixes: 2 of 64 tokens, each used by 3 requests (interleaved), suffixes of 8 tokens, 4 out',
      ],
      turns: [],
    });
    expect(workloadView({}, null)).toEqual({ facts: [], turns: [] });
  });

  it('says what a trace replay sent, how late its sends were and its latency from the schedule', () => {
    const view = workloadView(
      { workload: { kind: 'trace-asset', sha256: 'cd'.repeat(32), speed: 2 } },
      {
        workload: {
          kind: 'trace',
          promptTokens: 5000,
          reusablePromptTokens: 0,
          expectedReuseShare: 0,
          trace: { sha256: 'cd'.repeat(32), format: 'mooncake', lines: 40, spanS: 12.34, speed: 2 },
        },
        sendLateness: { sent: 40, late: 3, thresholdMs: 1, p50Ms: 0.2, p99Ms: 1.7, maxMs: 2.5 },
        ttftFromScheduleMs: ttft(40, 31),
        e2eFromScheduleMs: ttft(40, 400),
      },
    );
    expect(view.facts[0]).toBe(
      `trace ${'cd'.repeat(32)} replayed at 2x: each line sent at its time with its input and output lengths`,
    );
    expect(view.facts[1]).toMatch(/^trace of 40 lines over 12\.3 s \(mooncake format\) replayed at 2x · /);
    expect(view.facts[2]).toMatch(/^3 of 40 requests sent over 1 ms behind schedule \(lateness P50 /);
    expect(view.facts[3]).toMatch(/^from the scheduled send time .*TTFT P50 31/);
    expect(view.turns).toEqual([]);
  });
});
