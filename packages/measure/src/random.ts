export { exponentialSample, gammaSample, mulberry32, standardNormal, type Random } from '@teapot/random';

/** Independent streams from one seed (prompts vs arrivals), so changing one never shifts the other. */
export function deriveSeed(seed: number, stream: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35)) >>> 0;
}
