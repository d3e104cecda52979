/** A seeded uniform generator on [0, 1). */
export type Random = () => number;

/** mulberry32: small and fast; its quality is ample for workloads, simulated timings and resampling. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform on (0, 1]: safe under a logarithm. */
export function openUniform(random: Random): number {
  return 1 - random();
}

/** N(0, 1) by Box-Muller, from two draws. */
export function standardNormal(random: Random): number {
  return Math.sqrt(-2 * Math.log(openUniform(random))) * Math.cos(2 * Math.PI * random());
}
