import { exponentialSample, gammaSample, mulberry32 } from './random';

export type ArrivalProcess = 'poisson' | 'gamma' | 'constant';

export interface ArrivalScheduleOptions {
  ratePerS: number;
  arrival: ArrivalProcess;
  /** Gamma shape: 1 is Poisson, below 1 burstier, above 1 more regular. */
  burstiness?: number;
  seed?: number;
  /** How many arrivals; or all arrivals before durationS; with both, whichever ends first. */
  count?: number;
  durationS?: number;
}

const MAX_ARRIVALS = 50_000_000;

/**
 * Absolute send times in microseconds from the start of the load phase, computed up front so that a
 * late timer never shifts later arrivals (sleeping relative gaps would). The first arrival is at 0;
 * gaps have mean 1/ratePerS: exponential (poisson), Gamma(shape, 1/(shape*rate)) (gamma) or fixed.
 */
export function arrivalSchedule(options: ArrivalScheduleOptions): Float64Array {
  const { ratePerS, arrival, count, durationS } = options;
  const shape = options.burstiness ?? 1;
  if (!(ratePerS > 0) || !Number.isFinite(ratePerS))
    throw new RangeError(`ratePerS must be > 0, got ${ratePerS}`);
  if (!(shape > 0)) throw new RangeError(`burstiness must be > 0, got ${shape}`);
  if (count === undefined && durationS === undefined)
    throw new RangeError('arrivalSchedule needs count or durationS');
  const limitUs = durationS === undefined ? Infinity : durationS * 1e6;
  const maxCount = Math.min(count ?? MAX_ARRIVALS, MAX_ARRIVALS);
  const random = mulberry32(options.seed ?? 0);
  const meanGapUs = 1e6 / ratePerS;

  let times = new Float64Array(Math.min(maxCount, 1024));
  let n = 0;
  let t = 0;
  while (n < maxCount && t < limitUs) {
    if (n === times.length) {
      const grown = new Float64Array(Math.min(times.length * 2, maxCount));
      grown.set(times);
      times = grown;
    }
    times[n++] = t;
    if (arrival === 'constant') t = n * meanGapUs;
    else if (arrival === 'poisson') t += exponentialSample(random) * meanGapUs;
    else t += (gammaSample(random, shape) / shape) * meanGapUs;
  }
  return times.slice(0, n);
}
