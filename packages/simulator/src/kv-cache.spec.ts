import { post, readStream } from '../test/sse-client';
import { FIXED_STEP_GPU } from './fixed-step-gpu';
import { resolveDeployment, stepTimeS } from './latency-model';
import { replayLoad } from './replay';
import { startSimulator } from './server';
import { resolveSettings } from './settings';

const fp16 = resolveDeployment({ gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp16' });

/**
 * Two sequences of 16 prompt + 24 output tokens in a cache of 4 blocks (64 tokens): each needs 3 blocks
 * at its end, so both cannot finish resident. Both prefill (1 block each) and decode together; at 32
 * cached tokens each needs its third block with none free, so the later one (B) is preempted with 17
 * tokens generated. A finishes alone (7 more steps), then B re-prefills 16 + 17 = 33 tokens (emitting
 * its 18th) and decodes its last 6: 1 + 16 + 7 + 1 + 6 = 31 steps, one preemption.
 */
describe('the KV cache', () => {
  const scheduler = { maxBatch: 4, chunkedPrefill: false, chunkSize: 512, maxPrefillTokens: 8192 };
  /** `concurrency` sequences at once, each of the given lengths, with no jitter. */
  const replayed = (kvCacheTokens: number, inputTokens: number, outputTokens: number, concurrency: number) =>
    replayLoad({
      deployment: fp16,
      scheduler: { ...scheduler, kvCacheTokens },
      jitter: 0,
      seed: 1,
      workload: { inputTokens, outputTokens },
      load: { kind: 'closed', concurrency },
      requests: concurrency,
    });

  it('preempts the most recently admitted sequence when a block runs out, and recomputes it later', () => {
    const replay = replayed(64, 16, 24, 2);
    expect(replay.preemptions).toBe(1);
    expect(replay.steps).toBe(31);
    const [a, b] = replay.requests.map((r) => r.tokenTimesS);
    // B stalls from its 17th token until A's last, then one prefill step of prompt + generated tokens
    expect(b[16]).toBeLessThan(a[23]);
    const reprefill = stepTimeS(fp16, { decodeTokens: 0, prefillTokens: 33, kvTokensRead: 0 });
    expect(b[17] - a[23]).toBeCloseTo(reprefill, 12);
    for (const times of [a, b]) for (let k = 1; k < 24; k++) expect(times[k]).toBeGreaterThan(times[k - 1]);
  });

  it('never preempts when the cache holds every sequence whole', () => {
    const replay = replayed(96, 16, 24, 2);
    expect(replay.preemptions).toBe(0);
    expect(replay.steps).toBe(24);
  });

  it('admits no more than the cache holds: the rest wait though the batch has room', () => {
    // 8 blocks, prompts of 40 tokens (3 blocks each): two fit, the third waits for a finish
    const replay = replayed(128, 40, 2, 3);
    const firstTokens = replay.requests.map((r) => r.tokenTimesS[0]);
    expect(firstTokens[0]).toBe(firstTokens[1]);
    expect(firstTokens[2]).toBeGreaterThan(replay.requests[1].tokenTimesS[1]);
    expect(replay.preemptions).toBe(0);
  });

  it('is sized from GPU memory as vLLM sizes it, and refuses one that cannot hold maxModelLen', () => {
    const settings = resolveSettings({}, fp16);
    // (80 GB x 0.9 - 16.06 GB of weights) / 128 KiB per token, in blocks of 16
    const expected = Math.floor((80e9 * 0.9 - 8.03e9 * 2) / 131_072);
    expect(settings.kvCacheTokens % 16).toBe(0);
    expect(Math.abs(settings.kvCacheTokens - expected)).toBeLessThan(16);
    expect(resolveSettings({ gpuMemoryUtilization: 0.5 }, fp16).kvCacheTokens).toBeLessThan(
      settings.kvCacheTokens,
    );
    expect(() => resolveSettings({ kvCacheTokens: 1000, maxModelLen: 2048 }, fp16)).toThrow(/maxModelLen/);
    expect(() => resolveSettings({ kvCacheTokens: 8 }, fp16)).toThrow(/kvCacheTokens/);
    expect(() => resolveSettings({ gpuMemoryUtilization: 1.5 }, fp16)).toThrow(/gpuMemoryUtilization/);
    // a smaller GPU's cache caps the default context instead of refusing to start
    const l4 = resolveSettings({}, resolveDeployment({ gpu: 'l4', model: 'llama-8b' }));
    expect(l4.maxModelLen).toBe(l4.kvCacheTokens);
  });

  it('preempts in the live engine too: stats count it, and every token reaches the client once', async () => {
    const sim = await startSimulator({
      gpu: FIXED_STEP_GPU,
      latency: { stepOverheadS: 0.002 },
      jitter: 0,
      maxBatch: 4,
      kvCacheTokens: 64,
      maxModelLen: 64,
    });
    try {
      const body = { prompt: Array.from({ length: 16 }, (_, i) => `w${i}`).join(' '), stream: true };
      const responses = await Promise.all(
        [0, 1].map(() => post(`${sim.baseUrl}/completions`, { ...body, max_tokens: 24, ignore_eos: true })),
      );
      const ids = responses.map((r) => r.headers.get('x-teapot-response-id')!);
      await Promise.all(responses.map((r) => readStream(r)));
      const truths = ids.map((id) => sim.groundTruth(id)!);
      expect(truths.map((t) => t.promptTokens)).toEqual([16, 16]);
      for (const truth of truths) {
        expect(truth.events.filter((e) => e.kind === 'content')).toHaveLength(24);
      }
      const stats = sim.stats().engine;
      expect(stats.preemptions).toBe(1);
      expect(stats.kvCacheUsage).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
