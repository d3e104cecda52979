import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SweepOutcome, SweepPoint } from '@teapot/capacity';
import { EXIT, runCli } from './cli';
import { captureIo } from './test-support/io';
import { simulatorWorld } from './test-support/simulator-world';

jest.setTimeout(120_000);

interface SweepJson {
  spec: { kind: string };
  points: SweepPoint[];
  outcome: SweepOutcome;
}

/**
 * A simulator that saturates early: two sequences per batch and 24-token answers serve about
 * 2 / (24 x 6.4 ms) = 13 requests/s, so a search from 4 to 32 req/s must find a bracket inside it.
 */
describe('teapot sweep against a simulator URL', () => {
  const world = simulatorWorld({ maxBatch: 2, jitter: 0.02 });

  const sweep = (...flags: string[]) => [
    'sweep',
    ...['--url', world.simulator.baseUrl, '--input-tokens', '32', '--output-tokens', '24'],
    ...flags,
  ];

  it('finds a capacity inside its bracket, below the batch-limited service rate, in its point budget', async () => {
    const path = join(world.dir, 'search.json');
    const io = captureIo();
    const code = await runCli(
      sweep(
        ...['--slo', 'ttft_p99_ms=400', '--lowest', '4', '--highest', '32'],
        ...['--tolerance', '0.25', '--max-points', '5', '--requests', '24', '--json', path],
      ),
      io,
    );
    expect(io.err()).toMatch(/point 1: 4 req\/s/);
    expect(code).toBe(EXIT.ok);
    const result = JSON.parse(await readFile(path, 'utf8')) as SweepJson;
    const { points, outcome } = result;
    expect(points.length).toBeLessThanOrEqual(5);
    expect(points[0].load).toBe(4);
    expect(points[0].met).toBe(true);
    expect(['converged', 'point_limit']).toContain(outcome.reason);
    expect(outcome.bracket.failed).not.toBeNull();
    expect(outcome.capacity).toBe(outcome.bracket.passed);
    expect(outcome.capacity!).toBeGreaterThanOrEqual(4);
    expect(outcome.capacity!).toBeLessThan(outcome.bracket.failed!);
    // two streams of 24 tokens at >= 6.3 ms per step cannot finish more than ~13 requests/s
    expect(outcome.capacity!).toBeLessThan(14);
    for (const p of points) {
      expect(p.succeeded).toBe(p.requests);
      expect(p.met).toBe(p.targets.every((t) => t.met) && !p.saturation.saturated && p.missed.length === 0);
    }
    // no price: no cost, anywhere
    expect(points.every((p) => p.costPerMillionOutputTokensUsd === null)).toBe(true);
    expect(outcome.costPerMillionOutputTokensUsdAtCapacity).toBeNull();
    expect(io.out()).toMatch(/^capacity [\d.]+ req\/s \(fails at [\d.]+\) · stopped: /m);
  });

  it('measures listed points in order and prices them with a GPU-hour price', async () => {
    const io = captureIo();
    const code = await runCli(
      sweep('--points', '4,8', '--requests', '12', '--gpus', '2', '--usd-per-gpu-hour', '3', '--json', '-'),
      io,
    );
    expect(code).toBe(EXIT.ok);
    const { points, outcome } = JSON.parse(io.out()) as SweepJson;
    expect(points.map((p) => p.load)).toEqual([4, 8]);
    expect(outcome).toMatchObject({ reason: 'completed', capacity: null });
    for (const p of points) {
      expect(p.costPerMillionOutputTokensUsd).toBeCloseTo(((2 * 3) / 3600 / p.outputTokensPerS) * 1e6, 9);
      expect(p.tokensPerSPerGpu).toBeCloseTo(p.outputTokensPerS / 2, 9);
    }
  });

  it('exits 1 naming the flag for bad input, before measuring anything', async () => {
    const io = captureIo();
    expect(await runCli(sweep('--points', '4,2'), io)).toBe(EXIT.error);
    expect(io.err()).toContain('teapot sweep: --points: points must be strictly ascending: 2 follows 4');
    expect(io.err()).not.toContain('point 1');
  });
});
