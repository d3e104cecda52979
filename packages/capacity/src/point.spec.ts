import type { PercentileSummary, RunSummary } from '@teapot/run-definitions';
import {
  costPerMillionOutputTokens,
  gpuCountOf,
  pointFigures,
  requestLimits,
  type PointRequest,
} from './point';
import { saturationOf } from './saturation';

function dist(p99: number, p50 = p99 / 2): PercentileSummary {
  return {
    count: 100,
    mean: p50,
    std: 1,
    min: 0,
    max: p99 * 2,
    p50,
    p90: p99 * 0.9,
    p95: p99 * 0.95,
    p99,
    p999: p99 * 1.5,
  };
}

function summary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    requests: { total: 100, succeeded: 100, failed: 0, incomplete: 0, warmup: 0 },
    ttftMs: dist(400),
    ttfbMs: dist(390),
    tpotMs: dist(25),
    itlMs: dist(40),
    interChunkMs: dist(40),
    e2eMs: dist(4000),
    outputTokens: 12_800,
    promptTokens: 51_200,
    outputTokensPerS: 1280,
    requestsPerS: 10,
    goodputRps: null,
    errorsByClass: {},
    tokenSources: { usage_delta: 100 },
    durationS: 10,
    ...overrides,
  };
}

/** Requests at a steady rate, each taking e2e, with TTFT from a function of its index. */
function steady(n: number, ratePerS: number, ttftMs: (i: number) => number, e2eMs = 3000): PointRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    scheduledUs: (i / ratePerS) * 1e6,
    startUs: (i / ratePerS) * 1e6 + 50,
    ttftUs: ttftMs(i) * 1000,
    e2eUs: e2eMs * 1000,
    succeeded: true,
    good: true,
  }));
}

describe('pointFigures', () => {
  const slo = {
    targets: [
      { metric: 'ttft' as const, percentile: 99 as const, limitMs: 500 },
      { metric: 'tpot' as const, percentile: 99 as const, limitMs: 30 },
    ],
  };

  it('judges each target on the run’s exact percentile and prices the point', () => {
    const point = pointFigures(
      { dimension: 'rate', load: 10, summary: summary(), requests: steady(100, 10, () => 100) },
      slo,
      { gpus: 2, usdPerGpuHour: 3.6 },
    );
    expect(point.targets.map((t) => [t.metric, t.valueMs, t.met])).toEqual([
      ['ttft', 400, true],
      ['tpot', 25, true],
    ]);
    expect(point.met).toBe(true);
    expect(point.missed).toEqual([]);
    // 2 GPUs x $3.6/h = $0.002/s over 1280 tokens/s = $1.5625 per million tokens
    expect(point.costPerMillionOutputTokensUsd).toBeCloseTo(1.5625, 10);
    expect(point.tokensPerSPerGpu).toBe(640);
    // 100 requests of 3 s in a 10 s window: 30 in flight on average
    expect(point.meanInFlight).toBeCloseTo(30, 10);
    expect(point.tokensPerSPerUser).toBeCloseTo(1280 / 30, 10);
  });

  it('names what was missed, and counts failures against the point', () => {
    const requests = steady(100, 10, () => 100).map((r, i) =>
      i < 5 ? { ...r, succeeded: false, good: false } : r,
    );
    const point = pointFigures(
      {
        dimension: 'rate',
        load: 10,
        summary: summary({ ttftMs: dist(900) }),
        requests,
      },
      { ...slo, minGoodShare: 0.99 },
    );
    expect(point.met).toBe(false);
    expect(point.goodShare).toBeCloseTo(0.95, 10);
    expect(point.missed).toEqual(['ttft p99 900 ms > 500 ms', 'goodput 95% < 99% of requests']);
  });

  it('fails a point whose requests failed beyond 1% even when latencies pass', () => {
    const requests = steady(100, 10, () => 100).map((r, i) => (i < 3 ? { ...r, succeeded: false } : r));
    const point = pointFigures({ dimension: 'rate', load: 10, summary: summary(), requests }, slo);
    expect(point.missed).toEqual(['3% of requests failed']);
  });

  it('leaves out requests the measuring window cut off: unknown, neither failed nor good', () => {
    // The last 9 of 77 were still streaming when durationS ended (the run stores them incomplete).
    const requests = steady(77, 16, () => 40).map((r, i) =>
      i >= 68 ? { ...r, succeeded: false, good: false, e2eUs: null, cut: true } : r,
    );
    const point = pointFigures({ dimension: 'rate', load: 16, summary: summary(), requests }, slo);
    expect(point).toMatchObject({ requests: 68, succeeded: 68, failed: 0, met: true, missed: [] });
    expect(point.goodShare).toBe(1);
  });

  it('has no cost without a price or a GPU count, never a guess', () => {
    expect(costPerMillionOutputTokens(1000, { gpus: null, usdPerGpuHour: 2 })).toBeNull();
    expect(costPerMillionOutputTokens(1000, { gpus: 1, usdPerGpuHour: null })).toBeNull();
    expect(costPerMillionOutputTokens(0, { gpus: 1, usdPerGpuHour: 2 })).toBeNull();
    const point = pointFigures({
      dimension: 'concurrency',
      load: 8,
      summary: summary(),
      requests: steady(10, 1, () => 1),
    });
    expect([point.costPerMillionOutputTokensUsd, point.tokensPerSPerGpu, point.met]).toEqual([
      null,
      null,
      null,
    ]);
    expect(point.tokensPerSPerUser).toBe(160);
  });

  it('takes the GPUs from the count, else TP x PP', () => {
    expect(gpuCountOf({ gpuCount: 8, tensorParallel: 4 })).toBe(8);
    expect(gpuCountOf({ tensorParallel: 4, pipelineParallel: 2 })).toBe(8);
    expect(gpuCountOf({ tensorParallel: 2 })).toBe(2);
    expect(gpuCountOf({})).toBeNull();
  });

  it('gives each metric its loosest limit per request', () => {
    expect(
      requestLimits({
        targets: [
          { metric: 'ttft', percentile: 50, limitMs: 200 },
          { metric: 'ttft', percentile: 99, limitMs: 800 },
          { metric: 'itl', percentile: 99, limitMs: 50 },
        ],
      }),
    ).toEqual({ ttftMs: 800, itlMs: 50 });
  });
});

describe('saturationOf', () => {
  it('sees a queue that grows through the run', () => {
    const s = saturationOf({ dimension: 'rate', requests: steady(300, 30, (i) => 80 + i * 5) });
    expect(s.saturated).toBe(true);
    expect(s.reason).toMatch(/TTFT climbed/);
  });

  it('does not mistake the ramp-up from an empty server, or noise, for a queue', () => {
    let seed = 7;
    const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 60;
    const rampThenFlat = steady(300, 30, (i) => (i < 40 ? 20 + i * 2 : 100) + noise());
    const s = saturationOf({ dimension: 'rate', requests: rampThenFlat });
    expect(s).toMatchObject({ saturated: false, reason: null });
    expect(s.ttftGrowth).toBeGreaterThan(0.7);
    expect(s.completionRatio).toBeGreaterThan(0.9);
  });

  it('sees completions falling behind arrivals', () => {
    // 30/s offered, served at 20/s: each request ends after those before it, 50 ms apart
    const requests = steady(300, 30, () => 100).map((r, i) => ({
      ...r,
      e2eUs: Math.max(3_000_000, i * 50_000 + 3_000_000 - r.scheduledUs),
      ttftUs: 100_000,
    }));
    const s = saturationOf({ dimension: 'rate', requests });
    expect(s.completionRatio).toBeLessThan(0.8);
    expect(s.reason).toMatch(/completions kept/);
  });

  it('sees a client that could not send on schedule', () => {
    const late = steady(300, 30, () => 100).map((r, i) => ({ ...r, startUs: r.scheduledUs + i * 1000 }));
    expect(saturationOf({ dimension: 'rate', requests: late }).reason).toMatch(/behind schedule/);
  });

  it('leaves a closed loop to the sweep (a plateau across points)', () => {
    expect(
      saturationOf({ dimension: 'concurrency', requests: steady(300, 30, (i) => i * 100) }).saturated,
    ).toBe(false);
  });
});
