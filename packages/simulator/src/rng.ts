/** A small seeded PRNG (mulberry32): the simulator's only source of randomness, so a seed reproduces a run. */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes two integers into one seed, so each request gets its own stream derived from the run's seed. */
export function deriveSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function standardNormal(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Multiplicative lognormal jitter with median 1: exp(sigma x N(0,1)). */
export function lognormalFactor(random: Random, sigma: number): number {
  return sigma === 0 ? 1 : Math.exp(sigma * standardNormal(random));
}

/** Number of tokens up to and including a seeded EOS, geometric with the given mean (>= 1). */
export function geometricLength(random: Random, mean: number): number {
  if (mean <= 1) return 1;
  const u = 1 - random();
  return 1 + Math.floor(Math.log(u) / Math.log(1 - 1 / mean));
}
