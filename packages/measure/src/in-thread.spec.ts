import { runBenchmarkInThread } from './in-thread';
import { runBenchmark } from './run';
import { addedDelayP99Ms, useSimulatorThread } from './test-support/simulator-thread';
import { currentThreadCpuUs } from './thread-cpu';

jest.setTimeout(90_000);

/** Spins until this thread has used 400 ms of CPU: on a loaded machine, wall time is mostly waiting. */
function spinCpu400Ms(): void {
  const until = currentThreadCpuUs() + 400_000;
  while (currentThreadCpuUs() < until);
}

describe('runBenchmarkInThread', () => {
  const world = useSimulatorThread(8, 60);

  it("keeps timestamps on time, and counts only its own CPU, while the caller's thread is busy", async () => {
    // the caller's loop is blocked for 400 ms of its own CPU once the run is measuring (its first progress
    // report), as a worker storing a large run could be; a run measured on that loop reads those tokens late
    const blockedRun = (measure: typeof runBenchmark) => {
      let blocked = false;
      return measure({
        ...world.options,
        workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 120 },
        onProgress: () => {
          if (!blocked) setImmediate(spinCpu400Ms);
          blocked = true;
        },
      });
    };
    const callerCpuBefore = currentThreadCpuUs();
    const inThread = await blockedRun(runBenchmarkInThread);
    const callerCpuUs = currentThreadCpuUs() - callerCpuBefore;
    const here = await blockedRun(runBenchmark);
    expect(inThread.summary.requests).toMatchObject({ succeeded: 8, failed: 0 });
    const threadP99 = await addedDelayP99Ms(world.sim.baseUrl, inThread);
    const hereP99 = await addedDelayP99Ms(world.sim.baseUrl, here);
    expect(hereP99).toBeGreaterThan(250);
    // not zero on a shared machine, but not the caller's 400 ms
    expect(threadP99).toBeLessThan(hereP99 / 2);
    // the client's CPU is the measuring thread's own, not the spinning caller's
    expect(inThread.client.cpuUs).toBeGreaterThan(0);
    expect(inThread.client.cpuUs).toBeLessThan(callerCpuUs / 2);
  });

  it('rejects options that cannot describe a run with the same error as runBenchmark', async () => {
    const bad = { ...world.options, requests: 0 };
    await expect(runBenchmarkInThread(bad)).rejects.toThrow(RangeError);
    await expect(runBenchmarkInThread(bad)).rejects.toThrow('requests must be an integer >= 1, got 0');
  });

  it('throws what onProgress threw, after the run', async () => {
    let calls = 0;
    const run = runBenchmarkInThread({
      ...world.options,
      onProgress: () => {
        calls++;
        throw new Error('the display broke');
      },
    });
    await expect(run).rejects.toThrow('the display broke');
    expect(calls).toBe(1);
  });

  it('keeps the code of a failed lookup, so the request is classified by it', async () => {
    const port = new URL(world.sim.baseUrl).port;
    const result = await runBenchmarkInThread({
      ...world.options,
      requests: 2,
      target: {
        ...world.options.target,
        baseUrl: `http://nowhere.invalid:${port}/v1`,
        lookup: (hostname, _options, callback) =>
          callback(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
              code: 'ENOTFOUND',
              syscall: 'getaddrinfo',
            }),
            '',
            4,
          ),
      },
    });
    expect(result.summary.errorsByClass).toEqual({ connect_error: 2 });
    expect(result.requests[0].error!.message).toContain('ENOTFOUND nowhere.invalid');
  });
});
