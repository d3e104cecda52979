import { CHUNK_KIND, type RequestRecord, requestMetrics } from '@teapot/measure';
import { tokenTimeline } from './run-timeline';

/**
 * A request as the API returns it (arrays as JSON arrays, metrics derived by the measurement
 * package), from its start and its chunks' arrival offsets with the tokens each carried.
 */
function apiRequest(
  startUs: number,
  chunkOffsetsUs: number[],
  chunkTokens: number[],
  record: Partial<RequestRecord> = {},
) {
  const full: RequestRecord = {
    index: 0,
    warmup: false,
    outcome: 'ok',
    startUs,
    scheduledUs: startUs,
    ttfbUs: chunkOffsetsUs[0] ?? null,
    chunkOffsetsUs: new Uint32Array(chunkOffsetsUs),
    chunkTokens: new Uint16Array(chunkTokens),
    chunkKinds: new Uint8Array(chunkTokens.length).fill(CHUNK_KIND.content),
    tokenSource: 'usage_delta',
    outputTokens: chunkTokens.reduce((a, b) => a + b, 0),
    promptTokens: 8,
    targetPromptTokens: 8,
    responseId: null,
    finishReason: 'length',
    sessionId: null,
    turnIndex: null,
    ...record,
  };
  const metrics = requestMetrics(full);
  return {
    ...full,
    chunkOffsetsUs: Array.from(full.chunkOffsetsUs),
    chunkTokens: Array.from(full.chunkTokens),
    metrics: { itlUs: Array.from(metrics.itlUs) },
  };
}

describe('tokenTimeline', () => {
  it("places each of a multi-token chunk's ITL samples at that chunk's arrival, from the run's anchor", () => {
    // role-only chunk, first token at 10 ms, 2 tokens at 30 ms, 1 token at 36 ms, trailing usage chunk.
    const request = apiRequest(1_000_000, [5_000, 10_000, 30_000, 36_000, 36_100], [0, 1, 2, 1, 0]);
    const timeline = tokenTimeline([request]);
    expect(Array.from(timeline.timeS)).toEqual([1.03, 1.03, 1.036]);
    expect(Array.from(timeline.itlMs)).toEqual([10, 10, 6]);
    expect(timeline.requests).toBe(1);
  });

  it('merges concurrent requests in time order and leaves out warm-up and failed requests', () => {
    const a = apiRequest(0, [1_000, 3_000, 9_000], [1, 1, 1]);
    const b = apiRequest(2_000, [1_000, 2_000], [1, 1]);
    const warmup = apiRequest(0, [1, 2], [1, 1], { warmup: true });
    const failed = apiRequest(0, [1, 2], [1, 1], { outcome: 'error' });
    const timeline = tokenTimeline([a, warmup, b, failed]);
    expect(Array.from(timeline.timeS)).toEqual([0.003, 0.004, 0.009]);
    expect(Array.from(timeline.itlMs)).toEqual([2, 1, 6]);
    expect(timeline.requests).toBe(2);
  });

  it('draws nothing for a request with a single token chunk', () => {
    const one = apiRequest(0, [4_000], [3]);
    expect(tokenTimeline([one]).timeS).toHaveLength(0);
  });
});
