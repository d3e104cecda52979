import { clientDiagnostics } from './diagnostics';
import { percentile } from '@teapot/run-definitions';
import { summarize } from './metrics';
import { C, E, recordOf, type ChunkRow } from './test-support/records';
import type { RequestRecord } from './types';

/** A stream whose chunks arrive every `gapUs` from `firstUs`, each carrying `tokens[i]`. */
function stream(firstUs: number, gapUs: number, tokens: number[]): ChunkRow[] {
  return [[0, 0, E], ...tokens.map((m, i): ChunkRow => [firstUs + i * gapUs, m, C])];
}

function diagnose(records: RequestRecord[], tpotSloMs?: number) {
  return clientDiagnostics(records, summarize(records), tpotSloMs === undefined ? {} : { tpotSloMs });
}

describe('clientDiagnostics', () => {
  it('counts tokens per chunk and estimates the accepted length from mid-stream chunks', () => {
    // First chunk 1 token (the prefill's), then steps of 3, 3, 2, and a last chunk of 1 (the length limit).
    const d = diagnose([recordOf(stream(1000, 100, [1, 3, 3, 2, 1]))])!;
    expect(d.tokensPerChunkMean).toBeCloseTo(10 / 5);
    expect(d.multiTokenChunkShare).toBeCloseTo(3 / 5);
    expect(d.tokensPerChunkP99).toBeCloseTo(3);
    expect(d.acceptedLengthEstimate).toBeCloseTo(8 / 3);
  });

  it("reads the P99 tokens per chunk as numpy's linear percentile of every chunk's size", () => {
    const sizes = [...new Array(150).fill(1), ...new Array(46).fill(2), 7, 12];
    const d = diagnose([recordOf(stream(1000, 100, sizes))])!;
    const sorted = Float64Array.from(sizes).sort();
    expect(d.tokensPerChunkP99).toBeCloseTo(percentile(sorted, 0.99), 12);
    expect(d.tokensPerChunkP99).not.toBe(Math.round(d.tokensPerChunkP99!));
  });

  it('gives no acceptance estimate for one token per chunk, and no chunk figures without per-chunk counts', () => {
    const single = diagnose([recordOf(stream(1000, 100, [1, 1, 1, 1, 1]))])!;
    expect(single.tokensPerChunkMean).toBe(1);
    expect(single.multiTokenChunkShare).toBe(0);
    expect(single.acceptedLengthEstimate).toBeUndefined();
    const assumed = diagnose([recordOf(stream(1000, 100, [1, 1, 1]), { tokenSource: 'chunk' })])!;
    expect(assumed.tokensPerChunkMean).toBeUndefined();
    expect(assumed.acceptedLengthEstimate).toBeUndefined();
  });

  it('marks tokens late against TTFT + n x target, carrying slack forward and restarting after a miss', () => {
    // Target 100 us (SLO 0.1 ms). Tokens 1..6 arrive at +50 (early, 50 us slack), +200 (due 200: on
    // time thanks to the slack), +500 (due 300: late, schedule restarts at 500), +600 (due 600), +750
    // (due 700: late), +800 (due 850).
    const rows: ChunkRow[] = [
      [0, 0, E],
      ...[0, 50, 200, 500, 600, 750, 800].map((o): ChunkRow => [1000 + o, 1, C]),
    ];
    const d = diagnose([recordOf(rows)], 0.1)!;
    expect(d.deadlineTpotSource).toBe('slo');
    expect(d.deadlineTpotMs).toBeCloseTo(0.1);
    expect(d.lateTokenShare).toBeCloseTo(2 / 6);
  });

  it('takes the run median TPOT as the target without an SLO, and counts gaps over 5x the median ITL', () => {
    const steady = recordOf(stream(1000, 100, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
    const stalled = recordOf(
      [[0, 0, E], ...[0, 100, 200, 1300, 1400].map((o): ChunkRow => [1000 + o, 1, C])],
      {
        index: 1,
      },
    );
    const records = [steady, stalled];
    const d = diagnose(records)!;
    expect(d.deadlineTpotSource).toBe('median');
    expect(d.deadlineTpotMs).toBeCloseTo(summarize(records).tpotMs!.p50);
    expect(d.longGaps).toBe(1);
    expect(d.lateTokenShare).toBeGreaterThan(0);
  });

  it('splits ITL by whether its gap overlapped another request prefill', () => {
    // Request A decodes every 100 us from 1000 to 2000; request B is sent at 1450 and gets its first
    // token at 1800, so A's gaps ending at 1500..1800 overlap B's prefill: they are slow (400 us).
    const aOffsets = [1000, 1100, 1200, 1300, 1400, 1800, 1900, 2000];
    const a = recordOf([[0, 0, E], ...aOffsets.map((o): ChunkRow => [o, 1, C])]);
    const b = recordOf(
      [
        [0, 0, E],
        [350, 1, C],
        [450, 1, C],
      ],
      { index: 1, startUs: 1450 },
    );
    const d = diagnose([a, b])!;
    expect(d.itlP99DuringPrefillMs).toBeCloseTo(0.4, 1);
    expect(d.itlP99OutsidePrefillMs).toBeCloseTo(0.1);
    // A's gap 1400->1800 and 1800->1900 overlap B's prefill [1450, 1800)? The second starts at 1800: no.
    expect(d.duringPrefillShare).toBeCloseTo(1 / 8);
  });

  it('leaves out warm-up and failed requests, and answers null without a token', () => {
    const warm = recordOf(stream(1000, 100, [3, 3, 3]), { warmup: true });
    const failed = recordOf(stream(1000, 100, [3, 3, 3]), { outcome: 'error' });
    expect(diagnose([warm, failed])).toBeNull();
    expect(diagnose([recordOf([[0, 0, E]])])).toBeNull();
  });

  it('stays O(n log n): 300k tokens take about as long per token as ten thousand', () => {
    const run = (requests: number) => {
      const records = Array.from({ length: requests }, (_, i) =>
        recordOf(stream(500 + (i % 7) * 10, 100, new Array(100).fill(1)), { index: i, startUs: i * 2000 }),
      );
      const summary = summarize(records);
      const t0 = process.hrtime.bigint();
      clientDiagnostics(records, summary);
      return Number(process.hrtime.bigint() - t0) / (requests * 100);
    };
    run(100);
    const small = run(100);
    const large = run(3_000);
    // Per token; quadratic work would be 100x the small run's.
    expect(large).toBeLessThan(small * 10);
  });
});
