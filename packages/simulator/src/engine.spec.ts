import { waitFor } from '@teapot/testing-base';
import { streamCompletion as stream, withSimulator } from '../test/simulator';
import type { GroundTruth } from './ground-truth';
import { decodeStepTimeS, prefillTimeS, stepTimeS } from './latency-model';
import type { RunningSimulator } from './server';

// Every assertion here is on model time (scheduledNs), which a busy machine does not disturb.

/** Gaps between consecutive token events in model time, ns. */
function tokenGaps(truth: GroundTruth): number[] {
  const times = truth.events.filter((e) => e.kind === 'content').map((e) => e.scheduledNs);
  return times.slice(1).map((t, i) => Number(t - times[i]));
}

/**
 * Waits until the stream has written `tokens` tokens, so what follows arrives mid-stream even on a
 * busy machine: polled every 5 ms, well within a stream's remaining tokens.
 */
const streamed = (sim: RunningSimulator, id: string, tokens: number) =>
  waitFor(
    `${tokens} tokens of ${id}`,
    () => (sim.groundTruth(id)?.events.filter((e) => e.kind === 'content').length ?? 0) >= tokens,
    20_000,
    5,
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('the continuous-batching engine', () => {
  it('spaces one stream exactly by the modelled decode step, after a prefill of its prompt', async () => {
    await withSimulator({}, async (sim) => {
      const { id, result } = await stream(sim, 100, 12);
      await result;
      const truth = sim.groundTruth(id)!;
      const d = sim.deployment;
      // token k+1 is decoded with 100 prompt + k generated tokens in the KV cache
      const expected = Array.from({ length: 11 }, (_, k) =>
        Math.round(decodeStepTimeS(d, 1, 100 + k + 1) * 1e9),
      );
      expect(tokenGaps(truth)).toEqual(expected);
      const ttftNs = Number(truth.events[0].scheduledNs - truth.arrivedNs);
      expect(ttftNs).toBeGreaterThanOrEqual(prefillTimeS(d, 100) * 1e9);
      // the prefill starts when the parsed request reaches the engine: wall time on a busy machine
      expect(ttftNs).toBeLessThan(prefillTimeS(d, 100) * 1e9 + 200e6);
    });
  });

  it('shares each decode step among all running streams: the step grows with the batch', async () => {
    await withSimulator({ kvCacheDtype: 'fp16' }, async (sim) => {
      const streams = await Promise.all(Array.from({ length: 48 }, () => stream(sim, 1000, 30)));
      await Promise.all(streams.map((s) => s.result));
      const single = decodeStepTimeS(sim.deployment, 1, 1015) * 1e9;
      const batched = decodeStepTimeS(sim.deployment, 48, 1015) * 1e9;
      const gaps = tokenGaps(sim.groundTruth(streams[0].id)!);
      expect(median(gaps)).toBeGreaterThan(single * 1.1);
      expect(median(gaps) / batched).toBeGreaterThan(0.97);
      expect(median(gaps) / batched).toBeLessThan(1.03);
    });
  });

  it('without chunked prefill, a new long prompt stalls a running stream for one whole prefill step', async () => {
    await withSimulator({ chunkedPrefill: false }, async (sim) => {
      const running = await stream(sim, 10, 60);
      await streamed(sim, running.id, 5);
      const newcomer = await stream(sim, 4000, 2);
      await Promise.all([running.result, newcomer.result]);
      const gaps = tokenGaps(sim.groundTruth(running.id)!);
      const stall = Math.max(...gaps);
      const expected = (prefillTimeS(sim.deployment, 4000) + decodeStepTimeS(sim.deployment, 2, 4000)) * 1e9;
      expect(stall / expected).toBeGreaterThan(0.99);
      expect(stall / expected).toBeLessThan(1.01);
      expect(stall).toBeGreaterThan(10 * median(gaps));
    });
  });

  it('with chunked prefill, the stall is bounded by one mixed step of chunkSize prompt tokens', async () => {
    await withSimulator({ chunkedPrefill: true, chunkSize: 512 }, async (sim) => {
      const running = await stream(sim, 10, 60);
      await streamed(sim, running.id, 5);
      const newcomer = await stream(sim, 4000, 2);
      await Promise.all([running.result, newcomer.result]);
      const gaps = tokenGaps(sim.groundTruth(running.id)!);
      const bound =
        stepTimeS(sim.deployment, { decodeTokens: 1, prefillTokens: 512, kvTokensRead: 4100 }) * 1e9;
      expect(Math.max(...gaps)).toBeLessThanOrEqual(bound);
      expect(Math.max(...gaps)).toBeLessThan(prefillTimeS(sim.deployment, 4000) * 1e9 * 0.2);
      // the newcomer's prompt took ceil(4000 / 512) = 8 mixed steps
      const truth = sim.groundTruth(newcomer.id)!;
      const ttft = Number(truth.events[0].scheduledNs - truth.arrivedNs);
      expect(ttft).toBeGreaterThan(7 * bound * 0.5);
      expect(ttft).toBeLessThan(9 * bound);
    });
  });

  it('queues requests beyond maxBatch until a running sequence finishes', async () => {
    await withSimulator({ maxBatch: 2 }, async (sim) => {
      const first = await Promise.all([stream(sim, 5, 20), stream(sim, 5, 20)]);
      await streamed(sim, first[0].id, 1);
      await streamed(sim, first[1].id, 1);
      const third = await stream(sim, 5, 5);
      await Promise.all([...first, third].map((s) => s.result));
      const lastOf = (id: string) => sim.groundTruth(id)!.events.at(-1)!.scheduledNs;
      const firstTokenOfThird = sim.groundTruth(third.id)!.events[0].scheduledNs;
      expect(firstTokenOfThird).toBeGreaterThan(
        lastOf(first[0].id) < lastOf(first[1].id) ? lastOf(first[0].id) : lastOf(first[1].id),
      );
    });
  });

  it('jitters step times from the seed: the same seed repeats, another differs', async () => {
    const gapsFor = (seed: number) =>
      withSimulator({ jitter: 0.05, seed }, async (sim) => {
        const { id, result } = await stream(sim, 10, 40);
        await result;
        return tokenGaps(sim.groundTruth(id)!);
      });
    const a = await gapsFor(5);
    const b = await gapsFor(5);
    const c = await gapsFor(6);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const mean = a.reduce((s, x) => s + x, 0) / a.length;
    const cv = Math.sqrt(a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length) / mean;
    expect(cv).toBeGreaterThan(0.02);
    expect(cv).toBeLessThan(0.1);
  });
});
