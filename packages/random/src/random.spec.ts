import { mulberry32, openUniform, standardNormal } from './index';

describe('mulberry32', () => {
  it('gives the same draws for the same seed, different ones for another, all in [0, 1)', () => {
    const a = Array.from({ length: 1000 }, mulberry32(7));
    expect(Array.from({ length: 1000 }, mulberry32(7))).toEqual(a);
    expect(Array.from({ length: 1000 }, mulberry32(8))).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('keeps its sequence: a change would change every seeded workload and simulated run', () => {
    const random = mulberry32(1);
    expect([random(), random(), random()].map((x) => x * 4294967296)).toEqual([
      2693262067, 11749833, 2265367787,
    ]);
  });
});

describe('openUniform and standardNormal', () => {
  it('never gives 0 to a logarithm, and a normal of mean ~0 and sd ~1', () => {
    const random = mulberry32(3);
    const samples = Array.from({ length: 20_000 }, () => standardNormal(random));
    const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
    const sd = Math.sqrt(samples.reduce((s, x) => s + (x - mean) ** 2, 0) / samples.length);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(sd - 1)).toBeLessThan(0.03);
    expect(openUniform(() => 0)).toBe(1);
  });
});
