import { percentile } from '@teapot/run-definitions';

const DEFAULT_ITERATIONS = 2_000;
const MAX_ITERATIONS = 100_000;

export function checkedIterations(value: number | undefined): number {
  const iterations = value ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be an integer within [1, ${MAX_ITERATIONS}], got ${iterations}`);
  return iterations;
}

export function checkedConfidence(value: number | undefined): number {
  const confidence = value ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  return confidence;
}

/** The central `confidence` interval of the resampled values (sorted in place). */
export function percentileInterval(values: Float64Array, confidence: number): [number, number] {
  values.sort();
  const alpha = (1 - confidence) / 2;
  return [percentile(values, alpha), percentile(values, 1 - alpha)];
}
