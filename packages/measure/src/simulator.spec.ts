import {
  startSimulator,
  type GroundTruth,
  type RunningSimulator,
  type SimulatorOptions,
} from '@teapot/simulator';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { arrivalSchedule } from './arrivals';
import { ClientConfigError } from './client-config-error';
import { deriveSeed } from './random';
import { runBenchmarkInThread } from './in-thread';
import { runBenchmark } from './run';
import {
  CHUNK_KIND,
  type Progress,
  type RequestRecord,
  type RunOptions,
  type RunResult,
  type Transport,
} from './types';

jest.setTimeout(30_000);

const GT_KIND_TO_CHUNK: Record<string, number> = {
  role: CHUNK_KIND.empty,
  content: CHUNK_KIND.content,
  usage: CHUNK_KIND.empty,
};

async function withSimulator<T>(
  options: SimulatorOptions,
  body: (sim: RunningSimulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ seed: 7, ...options });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/** The transport under test where a block sets one; the default otherwise. */
let transport: Transport | undefined;
/** Where the run is measured: on this thread, or on a thread of its own (what the worker and the CLI use). */
let measure: (options: RunOptions) => Promise<RunResult> = runBenchmark;

function options(sim: RunningSimulator, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    transport,
    target: { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.deployment.model.name },
    workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 12 },
    load: { kind: 'closed', concurrency: 4 },
    requests: 4,
    forceOutputLength: true,
    seed: 1,
    ...overrides,
  };
}

function faultRun(
  sim: RunningSimulator,
  fault: string,
  overrides: Partial<RunOptions> = {},
): Promise<RunResult> {
  const base = options(sim, overrides);
  return measure({ ...base, target: { ...base.target, headers: { 'x-teapot-fault': fault } } });
}

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

// Whether a run is measured on the caller's thread or on one of its own, its records, errors and
// ground-truth timings are the same.
describe.each([
  ["on the caller's thread", runBenchmark],
  ['on a thread of its own', runBenchmarkInThread],
] as const)('measured %s', (_where, each) => {
  beforeAll(() => {
    measure = each;
  });
  afterAll(() => {
    measure = runBenchmark;
  });

  // Both transports must agree with the ground truth and classify every fault alike.
  describe.each(['undici', 'http1'] as const)('%s transport', (each) => {
    beforeAll(() => {
      transport = each;
    });
    afterAll(() => {
      transport = undefined;
    });

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
              expect(Array.from(record.chunkKinds)).toEqual(
                truth.events.map((e) => GT_KIND_TO_CHUNK[e.kind]),
              );
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
          const result = await measure(
            options(sim, { requests: 6, load: { kind: 'closed', concurrency: 3 } }),
          );
          expect(result.summary.requests).toMatchObject({ total: 6, succeeded: 6 });
          expect(sim.stats().groundTruthResponses).toBe(6);
          expect(result.warmUp.chunks).toBeGreaterThan(2000);
          // undici's Pool cannot open a connection without sending a request
          expect(result.warmUp.connections).toBe(transport === 'undici' ? 0 : 3);
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
