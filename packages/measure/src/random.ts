import { openUniform, standardNormal, type Random } from '@teapot/random';

export { mulberry32, standardNormal, type Random } from '@teapot/random';

/** Independent streams from one seed (prompts vs arrivals), so changing one never shifts the other. */
export function deriveSeed(seed: number, stream: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35)) >>> 0;
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
