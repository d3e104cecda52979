import { mulberry32, standardNormal, type Random } from '@teapot/random';
import { percentile } from '@teapot/run-definitions';
import { bootstrapDelta, bootstrapDeltas, bootstrapRatioDelta } from '.';
import { HISTOGRAM_RELATIVE_ERROR, LatencyHistogram, SparseHistogram } from '../histogram';

/** Lognormal latencies around `medianUs`, whole microseconds. */
function latencies(random: Random, n: number, medianUs: number, sigma = 0.35): Float64Array {
  return Float64Array.from({ length: n }, () =>
    Math.round(medianUs * Math.exp(sigma * standardNormal(random))),
  );
}

function histogramOf(values: ArrayLike<number>): LatencyHistogram {
  const histogram = new LatencyHistogram();
  histogram.recordAll(values);
  return histogram;
}

function pooledSorted(runs: Float64Array[]): Float64Array {
  const all = new Float64Array(runs.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const run of runs) {
    all.set(run, at);
    at += run.length;
  }
  return all.sort();
}

describe('bootstrapDelta', () => {
  const random = mulberry32(42);
  const baseline = Array.from({ length: 6 }, () => latencies(random, 400, 20_000));
  const candidate = Array.from({ length: 6 }, () => latencies(random, 400, 24_000));

  it('estimates each side over the pooled samples of all its runs', () => {
    const result = bootstrapDelta({
      baseline,
      candidate,
      statistic: 'p99',
      resample: 'runs',
      iterations: 50,
    });
    expect(result.baseline).toBe(percentile(pooledSorted(baseline), 0.99));
    expect(result.candidate).toBe(percentile(pooledSorted(candidate), 0.99));
    expect(result.delta).toBe(result.candidate - result.baseline);
    expect(result.relativeDelta).toBeCloseTo(result.candidate / result.baseline - 1, 12);

    const mean = bootstrapDelta({ baseline, candidate, statistic: 'mean', resample: 'runs', iterations: 10 });
    const all = pooledSorted(baseline);
    expect(mean.baseline).toBeCloseTo(all.reduce((s, v) => s + v, 0) / all.length, 6);
  });

  it('estimates histogram runs as their merged histogram does, within its error of the exact value', () => {
    const histograms = (runs: Float64Array[]) => runs.map(histogramOf);
    const result = bootstrapDelta({
      baseline: histograms(baseline),
      candidate: histograms(candidate),
      statistic: 'p99.9',
      resample: 'runs',
      iterations: 50,
    });
    const merged = histograms(baseline).reduce((a, b) => a.merge(b));
    expect(result.baseline).toBe(merged.percentile(0.999));
    const exact = percentile(pooledSorted(baseline), 0.999);
    expect(Math.abs(result.baseline - exact)).toBeLessThanOrEqual(exact * HISTOGRAM_RELATIVE_ERROR);
  });

  it('finds a 20% shift inside its interval and no shift where there is none', () => {
    const shifted = bootstrapDelta({
      baseline,
      candidate,
      statistic: 'p50',
      resample: 'within-runs',
      seed: 3,
    });
    expect(shifted.relativeCi[0]).toBeGreaterThan(0.1);
    expect(shifted.relativeCi[0]).toBeLessThan(0.2);
    expect(shifted.relativeCi[1]).toBeGreaterThan(0.2);
    expect(shifted.ci[0]).toBeLessThan(shifted.delta);
    expect(shifted.ci[1]).toBeGreaterThan(shifted.delta);

    const other = Array.from({ length: 6 }, () => latencies(random, 400, 20_000));
    const same = bootstrapDelta({ baseline, candidate: other, statistic: 'p90', resample: 'runs', seed: 3 });
    expect(same.ci[0]).toBeLessThan(0);
    expect(same.ci[1]).toBeGreaterThan(0);
  });

  it('covers the true change about as often as its confidence says (within runs, one run a side)', () => {
    const rng = mulberry32(7);
    const trueP90 = 1_000 * Math.exp(0.35 * 1.2815515655446004);
    let covered = 0;
    const trials = 120;
    for (let t = 0; t < trials; t++) {
      const a = Float64Array.from({ length: 300 }, () => 1_000 * Math.exp(0.35 * standardNormal(rng)));
      const b = Float64Array.from({ length: 300 }, () => 1_100 * Math.exp(0.35 * standardNormal(rng)));
      const r = bootstrapDelta({
        baseline: [a],
        candidate: [b],
        statistic: 'p90',
        resample: 'within-runs',
        iterations: 400,
        seed: t,
      });
      const truth = 0.1 * trueP90;
      if (r.ci[0] <= truth && truth <= r.ci[1]) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.88);
    expect(covered / trials).toBeLessThan(0.995);
  });

  it('widens the interval by the spread between runs only when resampling runs', () => {
    // Each run sits at its own level (a noisy neighbour, a warm cache): runs are the independent unit.
    const rng = mulberry32(11);
    const run = (median: number) => latencies(rng, 500, median * Math.exp(0.15 * standardNormal(rng)));
    const a = Array.from({ length: 8 }, () => run(20_000));
    const b = Array.from({ length: 8 }, () => run(20_000));
    const width = (r: { ci: [number, number] }) => r.ci[1] - r.ci[0];
    const runs = bootstrapDelta({ baseline: a, candidate: b, statistic: 'p50', resample: 'runs' });
    const within = bootstrapDelta({ baseline: a, candidate: b, statistic: 'p50', resample: 'within-runs' });
    expect(width(runs)).toBeGreaterThan(2 * width(within));
  });

  it('with groups, draws groups then their entries: the spread between runs widens a per-request interval', () => {
    // Three runs a side, each at its own level, resampled request by request (one entry per request).
    const rng = mulberry32(13);
    const side = () =>
      Array.from({ length: 3 }, () => {
        const level = 20_000 * Math.exp(0.2 * standardNormal(rng));
        return Array.from({ length: 60 }, () => latencies(rng, 16, level));
      });
    const a = side();
    const b = side();
    const groupsOf = (runs: Float64Array[][]) => runs.flatMap((requests, r) => requests.map(() => r));
    const input = {
      baseline: a.flat(),
      candidate: b.flat(),
      statistic: 'p99' as const,
      resample: 'runs' as const,
    };
    const flat = bootstrapDelta(input);
    const grouped = bootstrapDelta({ ...input, groups: { baseline: groupsOf(a), candidate: groupsOf(b) } });
    const width = (r: { ci: [number, number] }) => r.ci[1] - r.ci[0];
    expect(grouped.delta).toBe(flat.delta);
    expect(width(grouped)).toBeGreaterThan(2 * width(flat));
    // One group per entry is the plain draw of entries, in distribution.
    const single = bootstrapDelta({
      ...input,
      groups: { baseline: input.baseline.map((_, i) => i), candidate: input.candidate.map((_, i) => i) },
    });
    expect(width(single)).toBeGreaterThan(0.7 * width(flat));
    expect(width(single)).toBeLessThan(1.4 * width(flat));
    expect(() => bootstrapDelta({ ...input, groups: { baseline: [0], candidate: groupsOf(b) } })).toThrow(
      /groups of baseline must name a group for each of its 180 entries/,
    );
  });

  it('gives histogram runs about the interval their raw values give', () => {
    const raw = bootstrapDelta({ baseline, candidate, statistic: 'p99', resample: 'within-runs', seed: 5 });
    const hist = bootstrapDelta({
      baseline: baseline.map(histogramOf),
      candidate: candidate.map(histogramOf),
      statistic: 'p99',
      resample: 'within-runs',
      seed: 5,
    });
    const width = raw.ci[1] - raw.ci[0];
    expect(Math.abs(hist.ci[0] - raw.ci[0])).toBeLessThan(0.15 * width);
    expect(Math.abs(hist.ci[1] - raw.ci[1])).toBeLessThan(0.15 * width);
    const histMean = bootstrapDelta({
      baseline: baseline.map(histogramOf),
      candidate: candidate.map(histogramOf),
      statistic: 'mean',
      resample: 'within-runs',
    });
    expect(histMean.ci[0]).toBeLessThan(histMean.delta);
    expect(histMean.ci[1]).toBeGreaterThan(histMean.delta);
  });

  it('is reproducible from its seed and accepts a custom statistic', () => {
    const input = { baseline, candidate, resample: 'runs' as const, iterations: 300 };
    const tailRatio = bootstrapDelta({
      ...input,
      statistic: (s) => s.quantile(0.99) / s.quantile(0.5),
      seed: 9,
    });
    expect(
      bootstrapDelta({ ...input, statistic: (s) => s.quantile(0.99) / s.quantile(0.5), seed: 9 }),
    ).toEqual(tailRatio);
    expect(
      bootstrapDelta({ ...input, statistic: (s) => s.quantile(0.99) / s.quantile(0.5), seed: 10 }).ci,
    ).not.toEqual(tailRatio.ci);
    const all = pooledSorted(baseline);
    expect(tailRatio.baseline).toBeCloseTo(percentile(all, 0.99) / percentile(all, 0.5), 12);
  });

  it('refuses input it cannot judge, naming the field', () => {
    const ok = { baseline, candidate, statistic: 'p99' as const, resample: 'runs' as const };
    expect(() => bootstrapDelta({ ...ok, baseline: [] })).toThrow(/baseline must list at least one run/);
    expect(() => bootstrapDelta({ ...ok, candidate: [[]] })).toThrow(/candidate holds no samples/);
    expect(() => bootstrapDelta({ ...ok, candidate: [[1, Number.NaN]] })).toThrow(/candidate\[0\]\[1\]/);
    expect(() => bootstrapDelta({ ...ok, baseline: [histogramOf([1]), [2]] })).toThrow(/baseline\[1\]/);
    expect(() => bootstrapDelta({ ...ok, baseline: [histogramOf([1])] })).toThrow(/both be histograms/);
    expect(() => bootstrapDelta({ ...ok, iterations: 0 })).toThrow(/iterations/);
    expect(() => bootstrapDelta({ ...ok, confidence: 1 })).toThrow(/confidence/);
    expect(() => bootstrapDelta({ ...ok, statistic: 'p42' as 'p99' })).toThrow(/unknown statistic p42/);
    expect(() => bootstrapDelta({ ...ok, resample: 'tokens' as 'runs' })).toThrow(/resample/);
  });
});

describe('bootstrapDeltas', () => {
  const random = mulberry32(7);
  const baseline = Array.from({ length: 5 }, () => histogramOf(latencies(random, 300, 10_000)));
  const candidate = Array.from({ length: 5 }, () => histogramOf(latencies(random, 300, 11_000)));

  it('gives each statistic what bootstrapDelta gives it alone, and sparse histograms what dense ones give', () => {
    for (const resample of ['runs', 'within-runs'] as const) {
      const input = { baseline, candidate, resample, iterations: 200, seed: 3 };
      const together = bootstrapDeltas({ ...input, statistics: ['p50', 'p99', 'mean'] });
      expect(together).toEqual([
        bootstrapDelta({ ...input, statistic: 'p50' }),
        bootstrapDelta({ ...input, statistic: 'p99' }),
        bootstrapDelta({ ...input, statistic: 'mean' }),
      ]);
    }
    const raw = Array.from({ length: 4 }, () => latencies(random, 50, 9_000));
    const sparse = raw.map((values) => SparseHistogram.of(values));
    const dense = raw.map(histogramOf);
    sparse.forEach((s, i) => {
      const buckets: number[][] = [];
      const denseBuckets: number[][] = [];
      s.forEachBucket((b, n) => buckets.push([b, n]));
      dense[i].forEachBucket((b, n) => denseBuckets.push([b, n]));
      expect(buckets).toEqual(denseBuckets);
      expect([s.count, s.mean, s.min, s.max]).toEqual([
        dense[i].count,
        dense[i].mean,
        dense[i].min,
        dense[i].max,
      ]);
    });
    const input = { resample: 'runs' as const, iterations: 100, statistics: ['p90', 'mean'] as const };
    expect(bootstrapDeltas({ ...input, baseline: sparse, candidate: sparse.slice(1) })).toEqual(
      bootstrapDeltas({ ...input, baseline: dense, candidate: dense.slice(1) }),
    );
    expect(() => bootstrapDeltas({ baseline, candidate, resample: 'runs', statistics: [] })).toThrow(
      /statistics must list/,
    );
  });
});

describe('pooling', () => {
  const random = mulberry32(21);
  // Runs at their own levels, with enough distinct buckets that auto takes the prefix table.
  const runs = (n: number, median: number) =>
    Array.from({ length: n }, () =>
      histogramOf(latencies(random, 2_000, median * Math.exp(0.1 * standardNormal(random)), 0.5)),
    );
  const baseline = runs(30, 20_000);
  const candidate = runs(25, 21_000);
  const tailRatio = (s: { quantile(q: number): number }) => s.quantile(0.99) / s.quantile(0.5);
  const statistics = ['p50', 'p90', 'p99', 'p99.9', 'mean', tailRatio] as const;

  it('gives identical intervals whether resampled runs are pooled by counts or by prefix', () => {
    const input = { baseline, candidate, statistics, resample: 'runs' as const, iterations: 400, seed: 4 };
    const counts = bootstrapDeltas({ ...input, pooling: 'counts' });
    expect(bootstrapDeltas({ ...input, pooling: 'prefix' })).toEqual(counts);
    expect(bootstrapDeltas(input)).toEqual(counts);
    // Two-stage draws (runs grouped, e.g. by day) pool the same way.
    const groups = { baseline: baseline.map((_, i) => i % 4), candidate: candidate.map((_, i) => i % 3) };
    expect(bootstrapDeltas({ ...input, groups, pooling: 'prefix' })).toEqual(
      bootstrapDeltas({ ...input, groups, pooling: 'counts' }),
    );
    // One run a side and raw values (counts of one, unsorted slots, ties) go through the same rule.
    const raw = [Float64Array.of(5, 1, 3, 3, 9, 1), Float64Array.of(2, 2, 8), Float64Array.of(7)];
    const other = [Float64Array.of(4, 6), Float64Array.of(1, 10, 10, 3)];
    for (const [b, c] of [
      [raw, other],
      [raw.slice(0, 1), other.slice(1)],
    ]) {
      const rawInput = { baseline: b, candidate: c, statistics, resample: 'runs' as const, iterations: 300 };
      expect(bootstrapDeltas({ ...rawInput, pooling: 'prefix' })).toEqual(
        bootstrapDeltas({ ...rawInput, pooling: 'counts' }),
      );
    }
  });

  it('keeps the documented meaning: the interval of a pooled quantile over whole runs redrawn', () => {
    // Written out: per iteration draw the baseline's runs, then the candidate's, merge, read p90.
    const iterations = 200;
    const result = bootstrapDelta({
      baseline,
      candidate,
      statistic: 'p90',
      resample: 'runs',
      iterations,
      seed: 8,
    });
    const draw = mulberry32(8);
    const resampled = (side: LatencyHistogram[]) => {
      const merged = new LatencyHistogram();
      for (let k = 0; k < side.length; k++) merged.merge(side[Math.floor(draw() * side.length)]);
      return merged.percentile(0.9)!;
    };
    const deltas = Float64Array.from({ length: iterations }, () => {
      const b = resampled(baseline);
      return resampled(candidate) - b;
    }).sort();
    expect(result.ci).toEqual([percentile(deltas, 0.025), percentile(deltas, 0.975)]);
  });

  it('refuses an unknown pooling', () => {
    expect(() =>
      bootstrapDelta({ baseline, candidate, statistic: 'p50', resample: 'runs', pooling: 'fast' as 'auto' }),
    ).toThrow(/pooling must be one of auto, counts, prefix/);
  });
});

describe('bootstrapRatioDelta', () => {
  const baseline = [
    { numerator: 1000, denominator: 10 },
    { numerator: 1200, denominator: 10 },
    { numerator: 900, denominator: 9 },
    { numerator: 1100, denominator: 11 },
  ];
  const candidate = [
    { numerator: 2000, denominator: 10 },
    { numerator: 2100, denominator: 10 },
    { numerator: 1900, denominator: 10 },
  ];

  it('pools the runs (sum over sum) and draws whole runs as a direct implementation does', () => {
    const result = bootstrapRatioDelta({ baseline, candidate, iterations: 500, seed: 5 });
    expect(result.baseline).toBe(4200 / 40);
    expect(result.candidate).toBe(6000 / 30);
    expect(result.delta).toBe(6000 / 30 - 4200 / 40);
    // The same draws, written out: per iteration the baseline's runs, then the candidate's.
    const random = mulberry32(5);
    const draw = (runs: typeof baseline) => {
      let n = 0;
      let d = 0;
      for (let k = 0; k < runs.length; k++) {
        const run = runs[Math.floor(random() * runs.length)];
        n += run.numerator;
        d += run.denominator;
      }
      return n / d;
    };
    const deltas = Float64Array.from({ length: 500 }, () => {
      const b = draw(baseline);
      return draw(candidate) - b;
    }).sort();
    expect(result.ci).toEqual([percentile(deltas, 0.025), percentile(deltas, 0.975)]);
    expect(result.ci[0]).toBeGreaterThan(0);
    expect(result.resample).toBe('runs');
  });

  it('refuses runs without totals, naming the side', () => {
    expect(() => bootstrapRatioDelta({ baseline: [], candidate })).toThrow(/baseline must list/);
    expect(() =>
      bootstrapRatioDelta({ baseline, candidate: [{ numerator: Number.NaN, denominator: 1 }] }),
    ).toThrow(/candidate\[0\]/);
    expect(() => bootstrapRatioDelta({ baseline, candidate: [{ numerator: 1, denominator: 0 }] })).toThrow(
      /candidate has no denominator/,
    );
  });
});
