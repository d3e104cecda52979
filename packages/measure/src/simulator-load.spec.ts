import { arrivalSchedule } from './arrivals';
import { deriveSeed } from './random';
import { describeEachThread, measure, options, withSimulator } from './test-support/simulator-runs';
import type { Progress } from './types';

describeEachThread(() => {
  describe('load', () => {
    it('excludes warm-up requests, which run first', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(
          options(sim, { warmupRequests: 3, requests: 5, load: { kind: 'closed', concurrency: 2 } }),
        );
        expect(result.requests.map((r) => [r.index, r.warmup])).toEqual([
          [0, true],
          [1, true],
          [2, true],
          [3, false],
          [4, false],
          [5, false],
          [6, false],
          [7, false],
        ]);
        const lastWarmupEnd = Math.max(
          ...result.requests
            .filter((r) => r.warmup)
            .map((r) => r.startUs + r.chunkOffsetsUs[r.chunkOffsetsUs.length - 1]),
        );
        expect(
          Math.min(...result.requests.filter((r) => !r.warmup).map((r) => r.startUs)),
        ).toBeGreaterThanOrEqual(lastWarmupEnd);
        expect(result.summary.requests).toMatchObject({ total: 5, succeeded: 5, warmup: 3 });
        expect(result.summary.ttftMs!.count).toBe(5);
        expect(result.summary.outputTokens).toBe(5 * 12);
      });
    });

    it('marks requests still running at the end of a duration-bounded run incomplete and stops them', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(
          options(sim, {
            requests: undefined,
            durationS: 1,
            load: { kind: 'closed', concurrency: 3 },
            workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 60, lengthJitter: 0.5 },
          }),
        );
        const incomplete = result.requests.filter((r) => r.outcome === 'incomplete');
        const ok = result.requests.filter((r) => r.outcome === 'ok');
        expect(incomplete.length).toBe(3);
        expect(ok.length).toBeGreaterThan(0);
        for (const r of incomplete) expect(r.error!.kind).toBe('aborted');
        expect(result.summary.requests).toMatchObject({ succeeded: ok.length, incomplete: 3, failed: 0 });
        expect(result.summary.outputTokens).toBe(ok.reduce((a, r) => a + r.outputTokens, 0));
        expect(result.summary.ttftMs!.count).toBe(ok.length);
        expect(result.durationUs).toBeGreaterThanOrEqual(1e6);
        // stopped at the duration, not run on (slack for a busy machine)
        expect(result.durationUs).toBeLessThan(2.5e6);
        // the streams were really cut: the server sees its clients gone
        const cutBy = Date.now() + 2000;
        while (sim.stats().openResponses > 0 && Date.now() < cutBy)
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(sim.stats().openResponses).toBe(0);
      });
    });

    it('aborts the whole run from a signal and returns what it has', async () => {
      await withSimulator({}, async (sim) => {
        const abort = new AbortController();
        // abort once all four streams are open (on a busy machine that takes longer than any fixed wait)
        const opened = (async () => {
          while (sim.stats().openResponses < 4) await new Promise((resolve) => setTimeout(resolve, 5));
          abort.abort();
        })();
        const measured = measure(
          options(sim, {
            requests: 100,
            signal: abort.signal,
            workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2000 },
            warmUp: false,
          }),
        );
        await opened;
        const abortedAt = Date.now();
        const result = await measured;
        expect(Date.now() - abortedAt).toBeLessThan(2000);
        expect(result.aborted).toBe(true);
        expect(result.requests.length).toBe(4);
        for (const r of result.requests)
          expect(r).toMatchObject({ outcome: 'incomplete', error: { kind: 'aborted' } });
        expect(result.summary.requests.incomplete).toBe(4);
      });
    });

    it('open loop sends at the precomputed absolute times', async () => {
      await withSimulator({}, async (sim) => {
        const load = { kind: 'open', ratePerS: 40, arrival: 'poisson' } as const;
        const result = await measure(options(sim, { load, requests: 20, seed: 11 }));
        const schedule = arrivalSchedule({ ...load, count: 20, seed: deriveSeed(11, 2) });
        const origin = result.requests[0].scheduledUs;
        result.requests.forEach((r, i) => {
          expect(Math.abs(r.scheduledUs - origin - schedule[i])).toBeLessThanOrEqual(1);
          expect(r.startUs).toBeGreaterThanOrEqual(r.scheduledUs - 300);
        });
        const lateness = result.requests.map((r) => r.startUs - r.scheduledUs).sort((a, b) => a - b);
        expect(lateness[10]).toBeLessThan(20_000);
        expect(result.summary.requests.succeeded).toBe(20);
      });
    });

    it('open loop honours the concurrency cap', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(
          options(sim, {
            load: { kind: 'open', ratePerS: 500, arrival: 'constant', maxConcurrency: 2 },
            requests: 8,
          }),
        );
        const spans = result.requests.map((r) => {
          const truth = sim.groundTruth(r.responseId!)!;
          return [truth.arrivedNs, truth.events[truth.events.length - 1].writtenNs] as const;
        });
        for (const [arrived] of spans) {
          const overlapping = spans.filter(([a, end]) => a <= arrived && end > arrived).length;
          expect(overlapping).toBeLessThanOrEqual(2);
        }
        // queueing behind the cap shows as start after the scheduled time
        expect(Math.max(...result.requests.map((r) => r.startUs - r.scheduledUs))).toBeGreaterThan(20_000);
      });
    });

    it('a seed reproduces the workload', async () => {
      await withSimulator({}, async (sim) => {
        const workload = { kind: 'synthetic', inputTokens: 40, outputTokens: 4, lengthJitter: 0.5 } as const;
        const prompts = async (seed: number) =>
          (
            await measure(
              options(sim, { workload, seed, requests: 6, load: { kind: 'closed', concurrency: 1 } }),
            )
          ).requests.map((r) => [r.promptTokens, r.outputTokens]);
        const a = await prompts(5);
        expect(await prompts(5)).toEqual(a);
        expect(await prompts(6)).not.toEqual(a);
      });
    });

    it('reports progress about every 200 ms with live tokens/s', async () => {
      await withSimulator({}, async (sim) => {
        const seen: Progress[] = [];
        const result = await measure(
          options(sim, {
            requests: 8,
            load: { kind: 'closed', concurrency: 4 },
            workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 100 },
            onProgress: (p) => seen.push(p),
          }),
        );
        const elapsedS = result.durationUs / 1e6;
        expect(seen.length).toBeGreaterThanOrEqual(2);
        expect(seen.length).toBeLessThanOrEqual(elapsedS / 0.2 + 3);
        expect(seen[seen.length - 1]).toMatchObject({ completed: 8, failed: 0, total: 8, outputTokens: 800 });
        expect(Math.max(...seen.map((p) => p.tokensPerS))).toBeGreaterThan(100);
      });
    });

    it('records client health', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(options(sim));
        expect(result.client.eventLoopDelayMs.max).toBeGreaterThanOrEqual(result.client.eventLoopDelayMs.p50);
        expect(typeof result.client.saturated).toBe('boolean');
        expect(result.client.cpuPercent).toBeGreaterThan(0);
      });
    });
  });
});
