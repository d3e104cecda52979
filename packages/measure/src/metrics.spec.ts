import { requestMetrics, summarize } from './metrics';
import { C, E, R, recordOf, T, type ChunkRow } from './test-support/records';
import type { RequestRecord, Slo } from './types';

// Role-only chunk at 1 ms, first token at 50 ms, 2 tokens at 60 ms, 3 tokens at 90 ms, usage chunk at 91 ms.
const multiToken: ChunkRow[] = [
  [1_000, 0, E],
  [50_000, 1, C],
  [60_000, 2, C],
  [90_000, 3, C],
  [91_000, 0, E],
];
const singleToken: ChunkRow[] = [
  [1_000, 0, E],
  [20_000, 1, C],
  [21_000, 0, E],
];
const empty: ChunkRow[] = [
  [1_000, 0, E],
  [2_000, 0, E],
];

describe('requestMetrics', () => {
  it('times a role-only first chunk and multi-token chunks as packages/measure/README.md defines', () => {
    const m = requestMetrics(recordOf(multiToken));
    expect(m.ttftUs).toBe(50_000); // not the role chunk at 1 ms
    expect(m.e2eUs).toBe(90_000); // not the usage chunk at 91 ms
    expect(Array.from(m.itlUs)).toEqual([5_000, 5_000, 10_000, 10_000, 10_000]); // 10 ms / 2, 30 ms / 3
    expect(Array.from(m.interChunkUs)).toEqual([10_000, 30_000]);
    expect(m.tpotUs).toBe((90_000 - 50_000) / (6 - 1));
    expect(m.timedTokens).toBe(6);
  });

  it('gives a single-token response TTFT and E2E but no TPOT or ITL', () => {
    const m = requestMetrics(recordOf(singleToken));
    expect(m).toMatchObject({ ttftUs: 20_000, e2eUs: 20_000, tpotUs: null, timedTokens: 1 });
    expect(m.itlUs.length).toBe(0);
    expect(m.interChunkUs.length).toBe(0);
  });

  it('gives an empty response no latency metrics at all', () => {
    const m = requestMetrics(recordOf(empty));
    expect(m).toMatchObject({ ttftUs: null, e2eUs: null, tpotUs: null, timedTokens: 0 });
    expect(m.itlUs.length + m.interChunkUs.length).toBe(0);
    expect(requestMetrics(recordOf([])).ttftUs).toBeNull();
  });

  it('keeps TTFT out of ITL when the first token chunk carries several tokens', () => {
    const m = requestMetrics(
      recordOf([
        [10_000, 3, C],
        [20_000, 1, C],
      ]),
    );
    expect(m.ttftUs).toBe(10_000);
    expect(Array.from(m.itlUs)).toEqual([10_000]);
    expect(m.tpotUs).toBeCloseTo(10_000 / 3, 9);
  });

  it('counts reasoning and tool-call chunks as output tokens', () => {
    const m = requestMetrics(
      recordOf([
        [5_000, 0, E],
        [8_000, 1, R],
        [9_000, 1, C],
        [12_000, 2, T],
      ]),
    );
    expect(m.ttftUs).toBe(8_000);
    expect(Array.from(m.itlUs)).toEqual([1_000, 1_500, 1_500]);
  });
});

describe('summarize', () => {
  const warmup = recordOf(
    [
      [9_000_000, 1, C],
      [9_900_000, 1, C],
    ],
    { warmup: true, outputTokens: 2 },
  );
  const failed = (kind: 'timeout' | 'rate_limited'): RequestRecord =>
    recordOf([[70_000, 1, C]], { outcome: 'error', error: { kind, message: kind }, outputTokens: 1 });
  const incomplete = recordOf(
    [
      [3_000, 1, C],
      [4_000, 1, C],
    ],
    { outcome: 'incomplete', error: { kind: 'aborted', message: 'cut' }, outputTokens: 2 },
  );
  const records = [
    warmup,
    recordOf(multiToken, { outputTokens: 6, tokenSource: 'usage_delta' }),
    recordOf(singleToken, { outputTokens: 1, tokenSource: 'usage_final' }),
    recordOf(empty, { outputTokens: 0, tokenSource: 'usage_delta' }),
    failed('timeout'),
    failed('rate_limited'),
    incomplete,
  ];

  it('derives every run metric from successful, measured requests only', () => {
    const s = summarize(records, { durationUs: 2_000_000 });
    expect(s.requests).toEqual({ total: 6, succeeded: 3, failed: 2, incomplete: 1, warmup: 1 });
    expect(s.ttftMs).toMatchObject({ count: 2, min: 20, max: 50, p50: 35, mean: 35 });
    expect(s.ttfbMs).toMatchObject({ count: 3, min: 1, max: 1 });
    expect(s.tpotMs).toMatchObject({ count: 1, p50: 8, p99: 8 });
    // token-weighted ITL samples: [5, 5, 10, 10, 10]
    expect(s.itlMs).toMatchObject({ count: 5, min: 5, max: 10, p50: 10, mean: 8 });
    expect(s.itlMs!.std).toBeCloseTo(Math.sqrt(6), 12);
    expect(s.itlMs!.p90).toBeCloseTo(10, 12);
    expect(s.interChunkMs).toMatchObject({ count: 2, min: 10, max: 30 });
    expect(s.e2eMs).toMatchObject({ count: 2, min: 20, max: 90 });
    expect(s.outputTokens).toBe(7);
    expect(s.promptTokens).toBe(30);
    expect(s.durationS).toBe(2);
    expect(s.outputTokensPerS).toBe(3.5);
    expect(s.requestsPerS).toBe(1.5);
    expect(s.errorsByClass).toEqual({ timeout: 1, rate_limited: 1 });
    expect(s.tokenSources).toEqual({ usage_delta: 2, usage_final: 1 });
    expect(s.goodputRps).toBeNull();
  });

  it('counts goodput against every SLO that is set', () => {
    const goodput = (slo: Slo) => summarize(records, { durationUs: 2_000_000, slo }).goodputRps;
    expect(goodput({})).toBeNull();
    // TTFT 40 ms: only the single-token response (20 ms); the empty one has no first token
    expect(goodput({ ttftMs: 40 })).toBe(0.5);
    // ITL 9 ms: the 10 ms samples fail the multi-token response; no ITL samples pass vacuously
    expect(goodput({ itlMs: 9 })).toBe(1);
    // TPOT at the limit passes (8 ms <= 8 ms)
    expect(goodput({ tpotMs: 8 })).toBe(1.5);
    expect(goodput({ tpotMs: 7.9 })).toBe(1);
    expect(goodput({ e2eMs: 90, ttftMs: 50 })).toBe(1);
  });

  it('without a duration uses the span from the first measured start to the last arrival', () => {
    const s = summarize([
      recordOf([[10_000, 1, C]], { startUs: 1_000_000, outputTokens: 1 }),
      recordOf([[500_000, 1, C]], { startUs: 1_500_000, outputTokens: 1 }),
      recordOf([[0, 1, C]], { startUs: 0, warmup: true }),
    ]);
    expect(s.durationS).toBe(1);
    expect(s.outputTokensPerS).toBe(2);
  });

  it('is empty but well-formed for a run with no successful request', () => {
    const s = summarize([failed('timeout')], { durationUs: 0 });
    expect(s.ttftMs).toBeNull();
    expect(s.itlMs).toBeNull();
    expect(s.outputTokensPerS).toBe(0);
    expect(s.requests.failed).toBe(1);
  });
});

describe('raw record size', () => {
  it('keeps one million token timings well under 32 MB', () => {
    const requests = 1000;
    const tokensPerRequest = 1000;
    const records = Array.from({ length: requests }, (_, i) =>
      recordOf(
        Array.from({ length: tokensPerRequest }, (_, k): ChunkRow => [1_000 + k * 7_000, 1, C]),
        { index: i },
      ),
    );
    let bytes = 0;
    let tokens = 0;
    for (const r of records) {
      bytes += r.chunkOffsetsUs.byteLength + r.chunkTokens.byteLength + r.chunkKinds.byteLength;
      for (const t of r.chunkTokens) tokens += t;
    }
    expect(tokens).toBe(1_000_000);
    expect(bytes).toBe(7_000_000);
    expect(bytes).toBeLessThan(32 * 1024 * 1024);
    expect(summarize(records, { durationUs: 1e6 }).itlMs!.count).toBe(999_000);
  });
});
