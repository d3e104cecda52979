/**
 * The simulator's randomness, all of it from @teapot/random's seeded generator (so a seed reproduces a
 * run): the per-request streams and the draws the latency model and the output lengths take.
 */
import { openUniform, standardNormal, type Random } from '@teapot/random';

export type { Random } from '@teapot/random';

/** Mixes two integers into one seed, so each request gets its own stream derived from the run's seed. */
export function deriveSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Multiplicative lognormal jitter with median 1: exp(sigma x N(0,1)). */
export function lognormalFactor(random: Random, sigma: number): number {
  return sigma === 0 ? 1 : Math.exp(sigma * standardNormal(random));
}

/** Number of tokens up to and including a seeded EOS, geometric with the given mean (>= 1). */
export function geometricLength(random: Random, mean: number): number {
  if (mean <= 1) return 1;
  return 1 + Math.floor(Math.log(openUniform(random)) / Math.log(1 - 1 / mean));
}
