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

/** Gamma(shape, 1) by Marsaglia-Tsang; shape < 1 through the boost Gamma(shape+1) * U^(1/shape). */
export function gammaSample(random: Random, shape: number): number {
  if (shape < 1) return gammaSample(random, shape + 1) * Math.pow(openUniform(random), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = standardNormal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = openUniform(random);
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

export function exponentialSample(random: Random): number {
  return -Math.log(openUniform(random));
}
