import { LATENCY_BUCKETS_S, REQUEST_LATENCY_BUCKETS_S, TOKEN_LATENCY_BUCKETS_S } from './latency-buckets';

/** OpenTelemetry GenAI's advised bounds for gen_ai.server.time_per_output_token (semantic conventions). */
const GEN_AI_TPOT_ADVICE_S = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5];

/**
 * The p-quantile a histogram gives (Prometheus' histogram_quantile: linear within the bucket), from
 * samples binned by `bounds`.
 */
function histogramQuantile(bounds: readonly number[], samples: number[], p: number): number {
  const counts = bounds.map((bound) => samples.filter((s) => s <= bound).length);
  const rank = p * samples.length;
  const at = counts.findIndex((count) => count >= rank);
  const lower = at === 0 ? 0 : bounds[at - 1];
  const below = at === 0 ? 0 : counts[at - 1];
  return lower + ((bounds[at] - lower) * (rank - below)) / (counts[at] - below);
}

function exactQuantile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(p * sorted.length) - 1];
}

describe('latency buckets', () => {
  it.each([
    ['token', TOKEN_LATENCY_BUCKETS_S],
    ['request', REQUEST_LATENCY_BUCKETS_S],
  ])('%s bounds ascend strictly and are in seconds', (_, bounds) => {
    for (let i = 1; i < bounds.length; i += 1) expect(bounds[i]).toBeGreaterThan(bounds[i - 1]);
    expect(bounds[0]).toBeLessThan(0.01);
    expect(bounds[bounds.length - 1]).toBeGreaterThanOrEqual(1);
  });

  it('resolve 3-7 ms per token at 0.5 ms, where the GenAI advice has no bound at all', () => {
    const inDecodeRange = (bounds: readonly number[]) => bounds.filter((b) => b >= 0.003 && b <= 0.007);
    expect(inDecodeRange(GEN_AI_TPOT_ADVICE_S)).toHaveLength(0);
    expect(inDecodeRange(TOKEN_LATENCY_BUCKETS_S)).toHaveLength(9);
    const belowTen = TOKEN_LATENCY_BUCKETS_S.filter((b) => b < 0.01);
    for (let i = 1; i < belowTen.length; i += 1)
      expect(belowTen[i] - belowTen[i - 1]).toBeCloseTo(0.0005, 12);
  });

  it('tell a 5 ms p99 from a 5.5 ms one, which the GenAI advice cannot', () => {
    // Two decode speeds 10% apart, spread evenly over +-1 ms.
    const spread = (centre: number) =>
      Array.from({ length: 1000 }, (_, i) => centre - 0.001 + (0.002 * i) / 999);
    const fast = spread(0.005);
    const slow = spread(0.0055);
    for (const samples of [fast, slow]) {
      const ours = histogramQuantile(TOKEN_LATENCY_BUCKETS_S, samples, 0.99);
      expect(Math.abs(ours - exactQuantile(samples, 0.99)) / exactQuantile(samples, 0.99)).toBeLessThan(0.05);
    }
    expect(histogramQuantile(GEN_AI_TPOT_ADVICE_S, fast, 0.99)).toBe(
      histogramQuantile(GEN_AI_TPOT_ADVICE_S, slow, 0.99),
    );
  });

  it('names a bucket set for each latency headline metric', () => {
    expect(Object.keys(LATENCY_BUCKETS_S).sort()).toEqual(['e2e', 'itl', 'tpot', 'ttft']);
  });
});
