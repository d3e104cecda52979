import { SATURATION } from './client-health';
import { runBenchmarkInThread } from './in-thread';
import { runBenchmark } from './run';
import { addedDelayP99Ms, busyFor, useSimulatorThread } from './test-support/simulator-thread';
import type { RunResult } from './types';

jest.setTimeout(90_000);

// The flag is judged against what the simulator knows: when it wrote each token.
describe('the saturation flag, against the ground truth', () => {
  const world = useSimulatorThread(12, 80);

  it('flags a run whose measuring event loop is blocked, and says what it means and what to do', async () => {
    // the loop that timestamps is busy 25 ms out of every 50: tokens arriving meanwhile are read late
    const blocker = setInterval(() => busyFor(25), 50);
    let result: RunResult;
    try {
      result = await runBenchmark(world.options);
    } finally {
      clearInterval(blocker);
    }
    const truthP99 = await addedDelayP99Ms(world.sim.baseUrl, result);
    expect(truthP99).toBeGreaterThan(2 * SATURATION.boundMs);
    expect(result.client.saturated).toBe(true);
    // the estimate is of the right size, not just over the bound
    expect(result.client.timingErrorP99Ms).toBeGreaterThan(truthP99 / 3);
    expect(result.client.timingErrorP99Ms).toBeLessThan(truthP99 * 3);
    expect(result.client.saturatedReason).toMatch(
      /^The measuring client could not read the streams on time .*late by about [\d.]+ ms at P99, more than the 5 ms teapot accepts/,
    );
    expect(result.client.saturatedReason).toMatch(/may show the client rather than the endpoint/);
    expect(result.client.saturatedReason).toMatch(
      /To fix: measure fewer concurrent streams per client process/,
    );
  });

  it('leaves an undisturbed run alone', async () => {
    const result = await runBenchmarkInThread(world.options);
    const truthP99 = await addedDelayP99Ms(world.sim.baseUrl, result);
    expect(truthP99).toBeLessThan(SATURATION.boundMs);
    expect(result.client.saturated).toBe(false);
    expect(result.client.saturatedReason).toBeUndefined();
    expect(result.client.timingErrorP99Ms).toBeLessThan(SATURATION.boundMs);
  });
});
