import { runBenchmarkInThread } from './in-thread';
import { runBenchmark } from './run';
import { addedDelayP99Ms, busyFor, simulatorThread } from './test-support/simulator-thread';
import { currentThreadCpuUs } from './thread-cpu';
import type { RunOptions, RunResult } from './types';

jest.setTimeout(90_000);

describe('runBenchmarkInThread', () => {
  let sim: Awaited<ReturnType<typeof simulatorThread>>;
  let options: RunOptions;
  beforeAll(async () => {
    sim = await simulatorThread();
    options = {
      target: { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.model },
      workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 60 },
      load: { kind: 'closed', concurrency: 4 },
      requests: 8,
      forceOutputLength: true,
    };
  });
  afterAll(() => sim.close());

  it("keeps timestamps on time, and counts only its own CPU, while the caller's thread is busy", async () => {
    // the caller's loop is blocked 100 ms out of every 400, as a worker persisting other runs could be
    // (not more: the spinning takes a core from the measuring thread on a 2-core machine)
    const blocker = setInterval(() => busyFor(100), 400);
    let inThread: RunResult;
    let here: RunResult;
    const callerCpuBefore = currentThreadCpuUs();
    let callerCpuUs: number;
    try {
      inThread = await runBenchmarkInThread(options);
      callerCpuUs = currentThreadCpuUs() - callerCpuBefore;
      here = await runBenchmark(options);
    } finally {
      clearInterval(blocker);
    }
    expect(inThread.summary.requests).toMatchObject({ succeeded: 8, failed: 0 });
    const threadP99 = await addedDelayP99Ms(sim.baseUrl, inThread);
    const hereP99 = await addedDelayP99Ms(sim.baseUrl, here);
    // a run measured on the blocked loop takes its tokens up to 100 ms late; one on its own thread does not
    expect(hereP99).toBeGreaterThan(50);
    expect(threadP99).toBeLessThan(hereP99 / 3);
    // the client's CPU is the measuring thread's own, not the spinning caller's
    expect(inThread.client.cpuUs).toBeGreaterThan(0);
    expect(inThread.client.cpuUs).toBeLessThan(callerCpuUs / 2);
  });

  it('rejects options that cannot describe a run with the same error as runBenchmark', async () => {
    const bad = { ...options, requests: 0 };
    await expect(runBenchmarkInThread(bad)).rejects.toThrow(RangeError);
    await expect(runBenchmarkInThread(bad)).rejects.toThrow('requests must be an integer >= 1, got 0');
  });

  it('throws what onProgress threw, after the run', async () => {
    let calls = 0;
    const run = runBenchmarkInThread({
      ...options,
      onProgress: () => {
        calls++;
        throw new Error('the display broke');
      },
    });
    await expect(run).rejects.toThrow('the display broke');
    expect(calls).toBe(1);
  });

  it('keeps the code of a failed lookup, so the request is classified by it', async () => {
    const port = new URL(sim.baseUrl).port;
    const result = await runBenchmarkInThread({
      ...options,
      requests: 2,
      target: {
        ...options.target,
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
