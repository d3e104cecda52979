import { CHUNK_KIND, type RequestRecord, requestMetrics } from '@teapot/measure';
import { tokenTimeline } from './run-timeline';

/** A request as the API returns it: arrays as JSON arrays, metrics derived by the measurement package. */
function apiRequest(
  record: Partial<RequestRecord> & Pick<RequestRecord, 'startUs' | 'chunkOffsetsUs' | 'chunkTokens'>,
) {
  const full: RequestRecord = {
    index: 0,
    warmup: false,
    outcome: 'ok',
    scheduledUs: record.startUs,
    ttfbUs: record.chunkOffsetsUs[0] ?? null,
    chunkKinds: new Uint8Array(record.chunkTokens.length).fill(CHUNK_KIND.content),
    tokenSource: 'usage_delta',
    outputTokens: Array.from(record.chunkTokens).reduce((a, b) => a + b, 0),
    promptTokens: 8,
    targetPromptTokens: 8,
    responseId: null,
    finishReason: 'length',
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
    const request = apiRequest({
      startUs: 1_000_000,
      chunkOffsetsUs: new Uint32Array([5_000, 10_000, 30_000, 36_000, 36_100]),
      chunkTokens: new Uint16Array([0, 1, 2, 1, 0]),
    });
    const timeline = tokenTimeline([request]);
    expect(Array.from(timeline.timeS)).toEqual([1.03, 1.03, 1.036]);
    expect(Array.from(timeline.itlMs)).toEqual([10, 10, 6]);
    expect(timeline.requests).toBe(1);
  });

  it('merges concurrent requests in time order and leaves out warm-up and failed requests', () => {
    const a = apiRequest({
      startUs: 0,
      chunkOffsetsUs: new Uint32Array([1_000, 3_000, 9_000]),
      chunkTokens: new Uint16Array([1, 1, 1]),
    });
    const b = apiRequest({
      startUs: 2_000,
      chunkOffsetsUs: new Uint32Array([1_000, 2_000]),
      chunkTokens: new Uint16Array([1, 1]),
    });
    const warmup = apiRequest({
      warmup: true,
      startUs: 0,
      chunkOffsetsUs: new Uint32Array([1, 2]),
      chunkTokens: new Uint16Array([1, 1]),
    });
    const failed = apiRequest({
      outcome: 'error',
      startUs: 0,
      chunkOffsetsUs: new Uint32Array([1, 2]),
      chunkTokens: new Uint16Array([1, 1]),
    });
    const timeline = tokenTimeline([a, warmup, b, failed]);
    expect(Array.from(timeline.timeS)).toEqual([0.003, 0.004, 0.009]);
    expect(Array.from(timeline.itlMs)).toEqual([2, 1, 6]);
    expect(timeline.requests).toBe(2);
  });

  it('draws nothing for a request with a single token chunk', () => {
    const one = apiRequest({
      startUs: 0,
      chunkOffsetsUs: new Uint32Array([4_000]),
      chunkTokens: new Uint16Array([3]),
    });
    expect(tokenTimeline([one]).timeS).toHaveLength(0);
  });
});
