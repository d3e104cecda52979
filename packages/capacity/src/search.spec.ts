import type { CapacitySlo, SweepSpec } from '@teapot/run-definitions';
import type { SweepPoint } from './point';
import { sweepOutcome } from './outcome';
import { nextSweepStep } from './search';

/**
 * A synthetic endpoint with a known capacity: P99 TTFT grows as a queue does (t0 / (1 - load/service))
 * and P99 TPOT with the batch (tp0 x (1 + load/service)); at or past the service rate it saturates.
 */
interface Model {
  service: number;
  ttft0: number;
  tpot0: number;
  /** Multiplicative noise on each measured value, e.g. 0.02. */
  noise: number;
}

function measure(model: Model, load: number, slo: CapacitySlo, rnd: () => number): SweepPoint {
  const rho = load / model.service;
  const jitter = () => 1 + model.noise * (2 * rnd() - 1);
  const saturated = rho >= 1;
  const values: Record<string, number> = {
    ttft: saturated ? 60_000 : (model.ttft0 / (1 - rho)) * jitter(),
    tpot: model.tpot0 * (1 + rho) * jitter(),
  };
  const targets = slo.targets.map((t) => ({
    ...t,
    valueMs: values[t.metric],
    met: values[t.metric] <= t.limitMs,
  }));
  const met = targets.every((t) => t.met) && !saturated;
  return {
    dimension: 'rate',
    load,
    requests: 200,
    succeeded: 200,
    failed: 0,
    achievedRps: Math.min(load, model.service),
    outputTokensPerS: Math.min(load, model.service) * 128,
    meanInFlight: load,
    targets,
    goodShare: 1,
    goodputRps: load,
    met,
    missed: met ? [] : ['x'],
    saturation: {
      saturated,
      reason: saturated ? 'queue' : null,
      ttftGrowth: null,
      completionRatio: null,
      sendLagMs: null,
    },
    tokensPerSPerUser: 128 / (1 + rho),
    tokensPerSPerGpu: Math.min(load, model.service) * 128,
    gpus: 1,
    costPerMillionOutputTokensUsd: (2 / 3600 / (Math.min(load, model.service) * 128)) * 1e6,
  };
}

/** The load where the model's binding target meets its limit (bisection to 1e-9). */
function trueCapacity(model: Model, slo: CapacitySlo): number {
  const noiseless = { ...model, noise: 0 };
  let lo = 0;
  let hi = model.service;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (measure(noiseless, mid, slo, Math.random).met) lo = mid;
    else hi = mid;
  }
  return lo;
}

function search(
  spec: SweepSpec,
  model: Model,
  seed = 1,
): { points: SweepPoint[]; step: ReturnType<typeof nextSweepStep> } {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const points: SweepPoint[] = [];
  for (;;) {
    const step = nextSweepStep(spec, points);
    if (step.kind === 'done') return { points, step };
    expect(points.some((p) => p.load === step.load)).toBe(false);
    points.push(measure(model, step.load, spec.slo!, rnd));
    expect(points.length).toBeLessThanOrEqual(32);
  }
}

const slo = (ttft: number, tpot: number): CapacitySlo => ({
  targets: [
    { metric: 'ttft', percentile: 99, limitMs: ttft },
    { metric: 'tpot', percentile: 99, limitMs: tpot },
  ],
});

function capacitySpec(s: CapacitySlo, lowest: number, highest: number): SweepSpec {
  return { kind: 'capacity', dimension: 'rate', slo: s, lowest, highest, tolerance: 0.05, maxPoints: 8 };
}

describe('nextSweepStep: capacity search', () => {
  const cases: Array<[string, Model, CapacitySlo]> = [];
  for (const service of [3, 17, 41, 120]) {
    for (const [ttft, tpot] of [
      [500, 30],
      [2000, 100],
      [300, 1000],
      [100_000, 25],
    ]) {
      cases.push([
        `service ${service}/s, ttft ${ttft}, tpot ${tpot}`,
        { service, ttft0: 40, tpot0: 14, noise: 0.02 },
        slo(ttft, tpot),
      ]);
    }
  }

  it.each(cases)('finds capacity within 5%% in at most 8 points (%s)', (_name, model, s) => {
    const truth = trueCapacity(model, s);
    const spec = capacitySpec(s, 0.5, 32);
    if (truth < 0.5 || truth > 32) return;
    for (const seed of [1, 2, 3]) {
      const { points, step } = search(spec, model, seed);
      expect(step).toMatchObject({ kind: 'done', reason: 'converged' });
      if (step.kind !== 'done') return;
      expect(points.length).toBeLessThanOrEqual(8);
      expect(Math.abs(step.capacity! / truth - 1)).toBeLessThanOrEqual(0.06);
      expect(step.bracket.failed! / step.bracket.passed! - 1).toBeLessThanOrEqual(0.05);
    }
  });

  it('says the SLO failed at the lowest load, with no capacity (never 0 or NaN)', () => {
    const model = { service: 10, ttft0: 40, tpot0: 14, noise: 0 };
    const { points, step } = search(capacitySpec(slo(500, 10), 1, 64), model);
    expect(points.map((p) => p.load)).toEqual([1]);
    expect(step).toEqual({
      kind: 'done',
      reason: 'below_lowest',
      capacity: null,
      bracket: { passed: null, failed: 1 },
    });
  });

  it('says the SLO held at the highest load', () => {
    const model = { service: 1000, ttft0: 40, tpot0: 14, noise: 0 };
    const { points, step } = search(capacitySpec(slo(2000, 100), 1, 64), model);
    expect(points.map((p) => p.load)).toEqual([1, 4, 16, 64]);
    expect(step).toMatchObject({ reason: 'above_highest', capacity: 64 });
  });

  it('stops at maxPoints with the best passing load', () => {
    const model = { service: 37, ttft0: 40, tpot0: 14, noise: 0 };
    const spec = { ...capacitySpec(slo(2000, 100), 1, 64), maxPoints: 4, tolerance: 0.005 } as SweepSpec;
    const { points, step } = search(spec, model);
    expect(points).toHaveLength(4);
    expect(step).toMatchObject({ reason: 'point_limit' });
    if (step.kind === 'done') expect(step.capacity).toBe(step.bracket.passed);
  });

  it('resumes from any prefix of its points with the same next load (no hidden state)', () => {
    const model = { service: 23, ttft0: 40, tpot0: 14, noise: 0.02 };
    const spec = capacitySpec(slo(500, 30), 0.5, 32);
    const { points } = search(spec, model);
    for (let n = 0; n < points.length; n++) {
      expect(nextSweepStep(spec, points.slice(0, n))).toEqual({ kind: 'measure', load: points[n].load });
    }
  });

  it('counts an over-saturated point as a fail whatever its latencies say', () => {
    const model = { service: 20, ttft0: 40, tpot0: 14, noise: 0 };
    const spec = capacitySpec(slo(1e9, 1e9), 1, 64);
    const { step } = search(spec, model);
    expect(step).toMatchObject({ reason: 'converged' });
    if (step.kind === 'done') expect(step.capacity).toBeLessThan(20);
  });

  it('bisects when the fail is over-saturation its latencies do not explain', () => {
    // Latencies far inside their limits on both sides of the bracket: the targets would put the
    // crossing beyond the failed load, so only bisection narrows it (not a step just under the fail).
    // The latencies follow a queue served at 120 req/s, but the point at 71.1 fell behind its arrivals.
    const model = { service: 120, ttft0: 40, tpot0: 6, noise: 0 };
    const spec = capacitySpec(slo(500, 30), 4, 512);
    const rnd = () => 0.5;
    const points = [4, 16, 47.6, 71.1].map((load) => measure(model, load, spec.slo!, rnd));
    const queued = {
      saturated: true,
      reason: 'completions fell behind',
      ttftGrowth: null,
      completionRatio: 0.5,
      sendLagMs: null,
    };
    points[3] = { ...points[3], met: false, saturation: queued };
    const step = nextSweepStep(spec, points);
    expect(step).toMatchObject({ kind: 'measure' });
    // The geometric middle of the bracket, aimed just under it as every estimate is (tolerance x 0.4).
    if (step.kind === 'measure') expect(step.load).toBeCloseTo(Math.sqrt(47.6 * 71.1) * (1 - 0.05 * 0.4), 6);
  });
});

describe('nextSweepStep: listed points', () => {
  const model = { service: 20, ttft0: 40, tpot0: 14, noise: 0 };
  const s = slo(2000, 100);

  it('measures each point in order and brackets the capacity', () => {
    const spec: SweepSpec = { kind: 'points', dimension: 'rate', points: [2, 8, 16, 18], slo: slo(300, 100) };
    const { points, step } = search(spec, model);
    expect(points.map((p) => p.load)).toEqual([2, 8, 16, 18]);
    expect(step).toMatchObject({ reason: 'completed', capacity: 16, bracket: { passed: 16, failed: 18 } });
  });

  it('stops after an over-saturated point', () => {
    const spec: SweepSpec = { kind: 'points', dimension: 'rate', points: [5, 25, 40, 80], slo: s };
    const { points, step } = search(spec, model);
    expect(points.map((p) => p.load)).toEqual([5, 25]);
    expect(step).toMatchObject({ reason: 'over_saturated', capacity: 5 });
  });

  it('has no capacity without an SLO', () => {
    const spec: SweepSpec = { kind: 'points', dimension: 'rate', points: [5, 10] };
    const points = [5, 10].map((load) => measure(model, load, s, () => 0.5));
    expect(nextSweepStep(spec, points)).toMatchObject({ kind: 'done', reason: 'completed', capacity: null });
  });
});

describe('sweepOutcome', () => {
  const model = { service: 20, ttft0: 40, tpot0: 14, noise: 0 };

  it('gives the cost at capacity and the Pareto frontier', () => {
    const spec = capacitySpec(slo(2000, 100), 1, 64);
    const { points, step } = search(spec, model);
    const outcome = sweepOutcome(spec, points);
    expect(outcome.capacity).toBe(step.kind === 'done' ? step.capacity : NaN);
    const atCapacity = points.find((p) => p.load === outcome.capacity)!;
    expect(outcome.costPerMillionOutputTokensUsdAtCapacity).toBeCloseTo(
      atCapacity.costPerMillionOutputTokensUsd!,
      12,
    );
    for (const i of outcome.frontier) {
      const a = points[i];
      expect(
        points.some(
          (b) => b.tokensPerSPerUser! > a.tokensPerSPerUser! && b.tokensPerSPerGpu! > a.tokensPerSPerGpu!,
        ),
      ).toBe(false);
    }
    expect(outcome.frontier.length).toBeGreaterThan(0);
  });

  it('claims no capacity for a sweep the caller ended, and keeps the bracket', () => {
    const spec = capacitySpec(slo(2000, 100), 1, 64);
    const points = [measure(model, 1, spec.slo!, () => 0.5)];
    expect(sweepOutcome(spec, points, 'endpoint_failed')).toMatchObject({
      reason: 'endpoint_failed',
      capacity: null,
      bracket: { passed: 1, failed: null },
      costPerMillionOutputTokensUsdAtCapacity: null,
    });
  });
});
