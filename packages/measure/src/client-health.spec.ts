import { judgeClientHealth, SATURATION, type ClientLoad } from './client-health';

function load(readLagP99Ms: number | null, loopP99Ms = 1): ClientLoad {
  return {
    eventLoopDelayMs: { p50: 0.2, p99: loopP99Ms, max: loopP99Ms * 2, mean: 0.5 },
    ...(readLagP99Ms === null ? {} : { readLagMs: { p50: 0.1, p99: readLagP99Ms, max: readLagP99Ms * 2 } }),
    cpuPercent: 40,
    cpuUs: 1000,
  };
}

describe('judgeClientHealth', () => {
  it('takes the read lag P99 as the P99 timestamp error', () => {
    expect(judgeClientHealth(load(2.5, 9)).timingErrorP99Ms).toBe(2.5);
  });

  it('falls back to the event-loop delay when no byte was read', () => {
    expect(judgeClientHealth(load(null, 3)).timingErrorP99Ms).toBe(3);
    expect(judgeClientHealth(load(null, 6)).saturated).toBe(true);
  });

  it(`leaves a run alone up to ${SATURATION.boundMs} ms, whatever its event-loop delay`, () => {
    const health = judgeClientHealth(load(SATURATION.boundMs, 20));
    expect(health.saturated).toBe(false);
    expect(health.saturatedReason).toBeUndefined();
  });

  it('flags a run past the bound and says what it means and what to do', () => {
    const health = judgeClientHealth(load(7.25));
    expect(health.saturated).toBe(true);
    expect(health.saturatedReason).toMatch(
      /^The measuring client could not read the streams on time \(it used 40% of a CPU core\): its token timestamps are late by about 7\.3 ms at P99, more than the 5 ms teapot accepts\./,
    );
    expect(health.saturatedReason).toMatch(/may show the client rather than the endpoint/);
    expect(health.saturatedReason).toMatch(/To fix: measure fewer concurrent streams per client process/);
  });
});
