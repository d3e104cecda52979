import { judgeClientHealth, SATURATION, type ClientLoad } from './client-health';

function load(loopP99Ms: number, cpuPercent = 40): ClientLoad {
  return {
    eventLoopDelayMs: { p50: 0.2, p99: loopP99Ms, max: loopP99Ms * 2, mean: 0.5 },
    cpuPercent,
    cpuUs: 1000,
  };
}

describe('judgeClientHealth', () => {
  it('estimates the P99 timestamp error from the loop delay, by the bench calibration', () => {
    expect(judgeClientHealth(load(2), 20).timingErrorP99Ms).toBeCloseTo(
      2 * SATURATION.timingErrorPerLoopDelay,
    );
  });

  it('leaves a run alone whose estimated error is small against the gaps it measured', () => {
    // 1.5 x 3 ms = 4.5 ms < 25% of 20 ms
    const health = judgeClientHealth(load(3), 20);
    expect(health.saturated).toBe(false);
    expect(health.saturatedReason).toBeUndefined();
  });

  it('flags the same lag against short gaps, and says what it means and what to do', () => {
    // 4.5 ms > 25% of 8 ms
    const health = judgeClientHealth(load(3), 8);
    expect(health.saturated).toBe(true);
    expect(health.saturatedReason).toMatch(
      /^The measuring client was the bottleneck: its event loop ran late \(P99 3\.0 ms\)/,
    );
    expect(health.saturatedReason).toMatch(
      /late by about 4\.5 ms at P99, more than 25% of the median gap between tokens \(8\.0 ms\)/,
    );
    expect(health.saturatedReason).toMatch(/may show the client rather than the endpoint/);
    expect(health.saturatedReason).toMatch(/To fix: measure fewer concurrent streams per client process/);
  });

  it('flags a client that used nearly a whole core, and a large lag when no gap was measured', () => {
    expect(judgeClientHealth(load(1, 99), 20).saturatedReason).toMatch(/used 99% of a CPU core/);
    expect(judgeClientHealth(load(4), null).saturated).toBe(true);
    expect(judgeClientHealth(load(3), null).saturated).toBe(false);
  });
});
