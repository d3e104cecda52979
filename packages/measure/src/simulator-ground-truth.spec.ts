import type { GroundTruth } from '@teapot/simulator';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ClientConfigError } from './client-config-error';
import {
  currentTransport,
  describeEachThreadAndTransport,
  measure,
  options,
  withSimulator,
} from './test-support/simulator-runs';
import { CHUNK_KIND, type RequestRecord, type RunResult } from './types';

const GT_KIND_TO_CHUNK: Record<string, number> = {
  role: CHUNK_KIND.empty,
  content: CHUNK_KIND.content,
  usage: CHUNK_KIND.empty,
};

/**
 * Measured arrival minus server write time, ns, for each token chunk against each content event; and
 * the arrival minus the write's start, which is never negative: a reader on another thread may take
 * the bytes before the writing thread gets the CPU back to note the time after its write.
 */
function arrivalDelaysNs(
  result: RunResult,
  record: RequestRecord,
  truth: GroundTruth,
): { delays: number[]; sinceWriteStart: number[] } {
  const anchor = BigInt(result.monotonicAnchorNs);
  const content = truth.events.filter((e) => e.kind === 'content');
  const delays: number[] = [];
  const sinceWriteStart: number[] = [];
  let j = 0;
  record.chunkTokens.forEach((tokens, k) => {
    if (tokens === 0) return;
    const arrivedNs = anchor + BigInt(record.startUs + record.chunkOffsetsUs[k]) * 1000n;
    delays.push(Number(arrivedNs - content[j].writtenNs));
    sinceWriteStart.push(Number(arrivedNs - content[j++].writeStartNs));
  });
  return { delays, sinceWriteStart };
}

describeEachThreadAndTransport(() => {
  describe('client against the simulator ground truth', () => {
    it.each(['chat', 'completions'] as const)(
      '%s: exact token counts and arrival times just after each write',
      async (apiKind) => {
        await withSimulator({ tokensPerChunk: 3 }, async (sim) => {
          const base = options(sim, { requests: 16, load: { kind: 'closed', concurrency: 8 } });
          const result = await measure({
            ...base,
            target: { ...base.target, apiKind },
            workload: { kind: 'synthetic', inputTokens: 48, outputTokens: 20 },
          });
          expect(result.summary.requests).toMatchObject({ total: 16, succeeded: 16, failed: 0 });
          expect(result.streamOptions).toMatchObject({ requested: true, rejectedByServer: false });
          const allDelays: number[] = [];
          let firstSinceWriteStart = Infinity;
          for (const record of result.requests) {
            const truth = sim.groundTruth(record.responseId!)!;
            expect(truth).toBeDefined();
            // one recorded chunk per data event the server wrote, same kinds, same token counts
            expect(Array.from(record.chunkKinds)).toEqual(truth.events.map((e) => GT_KIND_TO_CHUNK[e.kind]));
            expect(Array.from(record.chunkTokens)).toEqual(truth.events.map((e) => e.tokens));
            expect(record.outputTokens).toBe(20);
            expect(record.tokenSource).toBe('usage_delta');
            expect(record.promptTokens).toBe(truth.promptTokens);
            expect(record.promptTokens).toBe(48);
            expect(record.finishReason).toBe('length');
            const { delays, sinceWriteStart } = arrivalDelaysNs(result, record, truth);
            expect(delays.length).toBe(7); // 20 tokens in chunks of 3
            allDelays.push(...delays);
            firstSinceWriteStart = Math.min(firstSinceWriteStart, ...sinceWriteStart);
          }
          allDelays.sort((a, b) => a - b);
          // never before the write (0.5 us of rounding allowed), and shortly after it unless the client
          // itself reports that it lagged (this machine is shared; the accuracy benchmark measures this)
          expect(firstSinceWriteStart).toBeGreaterThanOrEqual(-500);
          const medianDelayNs = allDelays[Math.floor(allDelays.length / 2)];
          expect(medianDelayNs).toBeLessThan(result.client.saturated ? 1e9 : 20e6);
          expect(result.summary.outputTokens).toBe(16 * 20);
        });
      },
    );

    it('records the TTFT of the first content write, not of the role chunk', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(options(sim, { requests: 2 }));
        for (const record of result.requests) {
          const truth = sim.groundTruth(record.responseId!)!;
          expect(truth.events[0].kind).toBe('role');
          const anchor = BigInt(result.monotonicAnchorNs);
          const firstToken = record.chunkTokens.findIndex((t) => t > 0);
          expect(firstToken).toBe(1);
          const ttftArrival = anchor + BigInt(record.startUs + record.chunkOffsetsUs[firstToken]) * 1000n;
          expect(ttftArrival).toBeGreaterThanOrEqual(truth.events[1].writeStartNs - 500n);
          // the role chunk comes first; one read may carry both when the reader was held up between them
          expect(record.chunkOffsetsUs[0]).toBeLessThanOrEqual(record.chunkOffsetsUs[1]);
        }
      });
    });
  });

  describe('warm-up before the measured window', () => {
    it('runs the hot path on loopback chunks (the endpoint sees only measured requests) and opens the connections', async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(options(sim, { requests: 6, load: { kind: 'closed', concurrency: 3 } }));
        expect(result.summary.requests).toMatchObject({ total: 6, succeeded: 6 });
        expect(sim.stats().groundTruthResponses).toBe(6);
        expect(result.warmUp.chunks).toBeGreaterThan(2000);
        // undici's Pool cannot open a connection without sending a request
        expect(result.warmUp.connections).toBe(currentTransport() === 'undici' ? 0 : 3);
        const off = await measure(options(sim, { warmUp: false }));
        expect(off.warmUp).toEqual({ chunks: 0, connections: 0, durationMs: 0 });
      });
    });

    it("rehearses with the run's own prompts, a dataset's too, every rehearsal request whole", async () => {
      await withSimulator({}, async (sim) => {
        const result = await measure(
          options(sim, {
            requests: 2,
            workload: { kind: 'dataset', prompts: [{ prompt: 'one two three', outputTokens: 3 }] },
          }),
        );
        expect(result.summary.requests).toMatchObject({ total: 2, succeeded: 2 });
        expect(sim.stats().groundTruthResponses).toBe(2);
        // 48 long streams of 64 tokens, 32 more after the GC, then as many 2-token requests as the
        // run sends (2); each chat stream opens with a role chunk, and two responses in every four
        // report usage once, in a last event of its own (40 of the 80 long ones): none lost
        expect(result.warmUp.chunks).toBe((48 + 32) * 65 + 40 + 2 * 3);
      });
    });

    it('builds the first wave before the window, yet starts each request when it is sent, in the same order and with the same prompts', async () => {
      await withSimulator({}, async (sim) => {
        const run = (warmUp: boolean) =>
          measure(
            options(sim, {
              requests: 6,
              load: { kind: 'closed', concurrency: 3 },
              // every request draws its own lengths: the draw order shows in each record
              workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 12, lengthJitter: 0.5 },
              warmUp,
            }),
          );
        const [warmed, cold] = [await run(true), await run(false)];
        for (const result of [warmed, cold]) {
          expect(result.requests.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
          expect(result.requests.every((r) => r.outcome === 'ok')).toBe(true);
        }
        // built during the warm-up, the first three were sent after it: their start is the send
        const firstStartUs = Math.min(...warmed.requests.map((r) => r.startUs));
        expect(firstStartUs).toBeGreaterThanOrEqual(warmed.warmUp.durationMs * 1000);
        for (const record of warmed.requests) expect(record.ttfbUs).toBeLessThan(500_000);
        // the same seed draws the same prompts in the same order, built early or not
        const lengths = (result: RunResult) =>
          result.requests.map((r) => [r.targetPromptTokens, r.outputTokens]);
        expect(lengths(warmed)).toEqual(lengths(cold));
        expect(new Set(lengths(warmed).map((l) => l.join())).size).toBeGreaterThan(1);
      });
    });
  });

  describe("the target's lookup", () => {
    it('resolves every connection at connect time', async () => {
      await withSimulator({}, async (sim) => {
        const asked: string[] = [];
        const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
          asked.push(hostname);
          dnsLookup('127.0.0.1', lookupOptions, callback);
        };
        const port = new URL(sim.baseUrl).port;
        const base = options(sim, { requests: 6, load: { kind: 'closed', concurrency: 3 } });
        const result = await measure({
          ...base,
          target: { ...base.target, baseUrl: `http://teapot-lookup.invalid:${port}/v1`, lookup },
        });
        expect(result.summary.requests).toMatchObject({ succeeded: 6, failed: 0 });
        // one lookup per connection opened, none per request
        expect(asked).toEqual(['teapot-lookup.invalid', 'teapot-lookup.invalid', 'teapot-lookup.invalid']);
      });
    });

    it('a lookup that refuses the address -> client_config, not the endpoint down', async () => {
      await withSimulator({}, async (sim) => {
        const lookup: LookupFunction = (_hostname, _options, callback) =>
          callback(new ClientConfigError('169.254.169.254 is a link-local address'), '', 4);
        const port = new URL(sim.baseUrl).port;
        const base = options(sim, { requests: 2, load: { kind: 'closed', concurrency: 1 } });
        const result = await measure({
          ...base,
          target: { ...base.target, baseUrl: `http://metadata.invalid:${port}/v1`, lookup },
        });
        expect(result.summary.errorsByClass).toEqual({ client_config: 2 });
        expect(result.requests[0].error!.message).toContain('link-local');
        expect(sim.stats().groundTruthResponses).toBe(0);
      });
    });
  });

  describe('stream_options rejection', () => {
    it('retries without them, remembers it for the run and records it', async () => {
      await withSimulator({ fault: { mode: 'reject-stream-options' } }, async (sim) => {
        const result = await measure(
          options(sim, { requests: 6, load: { kind: 'closed', concurrency: 2 }, warmupRequests: 0 }),
        );
        expect(result.summary.requests).toMatchObject({ succeeded: 6, failed: 0 });
        expect(result.streamOptions.rejectedByServer).toBe(true);
        // the first wave (2 in flight) was rejected and retried; later requests went without
        expect(result.streamOptions.retriedRequests).toBe(2);
        for (const record of result.requests) {
          expect(record.tokenSource).toBe('chunk');
          expect(record.promptTokens).toBeNull();
          expect(record.outputTokens).toBe(
            sim.groundTruth(record.responseId!)!.events.reduce((a, e) => a + e.tokens, 0),
          );
        }
      });
    });
  });
});
