import { mulberry32, type Random } from '@teapot/random';
import type { BootstrapDeltaResult } from './deltas';
import { checkedConfidence, checkedIterations, percentileInterval } from './interval';

/** A run's share of a pooled rate: its numerator and denominator (e.g. output tokens and seconds). */
export interface RateTotals {
  numerator: number;
  denominator: number;
}

export interface BootstrapRatioInput {
  /** One entry per run. */
  baseline: ReadonlyArray<RateTotals>;
  candidate: ReadonlyArray<RateTotals>;
  /** Default 2,000. */
  iterations?: number;
  /** Default 0.95. */
  confidence?: number;
  /** Default 1. */
  seed?: number;
}

/**
 * Bootstrap confidence interval of the change of a pooled rate (sum of numerators / sum of
 * denominators, never a mean of per-run rates), resampling whole runs: a run is the only unit a rate
 * has. Seeded like bootstrapDelta.
 */
export function bootstrapRatioDelta(input: BootstrapRatioInput): BootstrapDeltaResult {
  const iterations = checkedIterations(input.iterations);
  const confidence = checkedConfidence(input.confidence);
  const baseline = checkedTotals(input.baseline, 'baseline');
  const candidate = checkedTotals(input.candidate, 'candidate');
  const random = mulberry32(input.seed ?? 1);
  const deltas = new Float64Array(iterations);
  const relatives = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const b = resampledRatio(baseline, random);
    const c = resampledRatio(candidate, random);
    deltas[i] = c - b;
    relatives[i] = c / b - 1;
  }
  const b = pooledRatio(baseline);
  const c = pooledRatio(candidate);
  return {
    baseline: b,
    candidate: c,
    delta: c - b,
    relativeDelta: c / b - 1,
    ci: percentileInterval(deltas, confidence),
    relativeCi: percentileInterval(relatives, confidence),
    iterations,
    resample: 'runs',
  };
}

function checkedTotals(runs: ReadonlyArray<RateTotals>, field: string): ReadonlyArray<RateTotals> {
  if (!Array.isArray(runs) || runs.length === 0) throw new RangeError(`${field} must list at least one run`);
  runs.forEach((run, r) => {
    if (!Number.isFinite(run?.numerator) || !Number.isFinite(run?.denominator) || run.denominator < 0)
      throw new RangeError(`${field}[${r}] needs a finite numerator and a denominator >= 0`);
  });
  if (runs.every((run) => run.denominator === 0)) throw new RangeError(`${field} has no denominator`);
  return runs;
}

function pooledRatio(runs: ReadonlyArray<RateTotals>): number {
  let numerator = 0;
  let denominator = 0;
  for (const run of runs) {
    numerator += run.numerator;
    denominator += run.denominator;
  }
  return numerator / denominator;
}

function resampledRatio(runs: ReadonlyArray<RateTotals>, random: Random): number {
  let numerator = 0;
  let denominator = 0;
  for (let k = 0; k < runs.length; k++) {
    const run = runs[Math.floor(random() * runs.length)];
    numerator += run.numerator;
    denominator += run.denominator;
  }
  return denominator > 0 ? numerator / denominator : NaN;
}
