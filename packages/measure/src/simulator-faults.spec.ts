import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import {
  describeEachThreadAndTransport,
  measure,
  options,
  withSimulator,
} from './test-support/simulator-runs';
import type { RunOptions, RunResult } from './types';

function faultRun(
  sim: RunningSimulator,
  fault: string,
  overrides: Partial<RunOptions> = {},
): Promise<RunResult> {
  const base = options(sim, overrides);
  return measure({ ...base, target: { ...base.target, headers: { 'x-teapot-fault': fault } } });
}

describeEachThreadAndTransport(() => {
  describe('faults are classified per request and the run still completes', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSimulator({ seed: 3, fault: { mode: '429', rate: 0, retryAfterS: 7 } });
    });
    afterAll(() => sim.close());

    it.each([
      ['refuse', 'connect_error'],
      ['500', 'http_status'],
      ['stall', 'stream_stalled'],
      ['malformed', 'malformed_stream'],
      ['truncate', 'truncated_stream'],
      ['error-event', 'stream_error_event'],
    ])('%s -> %s', async (fault, kind) => {
      const result = await faultRun(sim, fault, {
        // short for the stall alone: on a busy machine a healthy stream may go quiet this long
        ...(fault === 'stall' ? { stallTimeoutMs: 300 } : {}),
        requests: 3,
        load: { kind: 'closed', concurrency: 3 },
      });
      expect(result.summary.requests).toMatchObject({ total: 3, succeeded: 0, failed: 3 });
      expect(result.summary.errorsByClass).toEqual({ [kind]: 3 });
      for (const record of result.requests) {
        expect(record.outcome).toBe('error');
        expect(record.error!.kind).toBe(kind);
        expect(record.error!.message.length).toBeGreaterThan(0);
      }
      if (fault === '500') expect(result.requests[0].error!.status).toBe(500);
    });

    it('429 -> rate_limited with the Retry-After kept', async () => {
      const result = await faultRun(sim, '429', { requests: 2 });
      expect(result.summary.errorsByClass).toEqual({ rate_limited: 2 });
      expect(result.requests[0].error).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterS: 7 });
    });

    it('mid-stream faults keep the tokens that arrived before them', async () => {
      const base = options(sim, { requests: 1, load: { kind: 'closed', concurrency: 1 } });
      const result = await measure({
        ...base,
        target: { ...base.target, headers: { 'x-teapot-fault': 'truncate', 'x-teapot-fault-after': '5' } },
      });
      const [record] = result.requests;
      expect(record.error!.kind).toBe('truncated_stream');
      expect(record.outputTokens).toBe(5);
      expect(result.summary.outputTokens).toBe(0);
    });

    it('a refused connection -> connect_refused', async () => {
      const closed = await startSimulator();
      await closed.close();
      const result = await measure(
        options(closed, { requests: 3, load: { kind: 'closed', concurrency: 2 } }),
      );
      expect(result.summary.errorsByClass).toEqual({ connect_refused: 3 });
      expect(result.requests.every((r) => r.ttfbUs === null && r.chunkOffsetsUs.length === 0)).toBe(true);
    });

    it('an endpoint down for under a second costs a short gap, not the run (pauses and one probe at a time)', async () => {
      const closed = await startSimulator();
      await closed.close();
      let revived: RunningSimulator | null = null;
      let revive: NodeJS.Timeout | undefined;
      // 700 ms after the run began (its first progress report, 200 ms in), not after a thread started
      const onProgress = () => {
        revive ??= setTimeout(() => {
          void startSimulator({ seed: 7, port: closed.port }).then((s) => (revived = s));
        }, 500);
      };
      try {
        // no warm-up: on a loaded machine it could outlast the outage
        const result = await measure(
          options(closed, {
            requests: 40,
            load: { kind: 'closed', concurrency: 4 },
            warmUp: false,
            onProgress,
          }),
        );
        const { succeeded, failed } = result.summary.requests;
        // the 4 in flight when it went down, then a probe per pause (100, 200, 400 ms... ceilings)
        expect(failed).toBeLessThanOrEqual(10);
        expect(succeeded).toBe(40 - failed);
        expect(result.summary.errorsByClass).toEqual({ connect_refused: failed });
        expect(result.connectBackoff).toMatchObject({ outages: 1, gaveUp: false });
        expect(result.connectBackoff.pauses).toBeGreaterThanOrEqual(2);
        expect(result.connectBackoff.longestOutageMs).toBeGreaterThan(500);
        expect(result.summary.connectBackoff).toEqual(result.connectBackoff);
      } finally {
        clearTimeout(revive);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await (revived as RunningSimulator | null)?.close();
      }
    });

    it('a slow response -> timeout', async () => {
      const result = await measure(
        options(sim, {
          requests: 2,
          timeoutMs: 100,
          workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2000 },
        }),
      );
      expect(result.summary.errorsByClass).toEqual({ timeout: 2 });
    });

    it('a mix of faults and successes is counted by class', async () => {
      await withSimulator({ fault: { mode: '500', rate: 0.5 } }, async (mixed) => {
        const result = await measure(options(mixed, { requests: 20 }));
        const { succeeded, failed } = result.summary.requests;
        expect(succeeded + failed).toBe(20);
        expect(failed).toBeGreaterThan(0);
        expect(succeeded).toBeGreaterThan(0);
        expect(result.summary.errorsByClass).toEqual({ http_status: failed });
        expect(result.summary.ttftMs!.count).toBe(succeeded);
      });
    });
  });
});
