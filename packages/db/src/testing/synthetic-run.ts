import { CHUNK_KIND, summarize, type RequestRecord, type RunResult } from '@teapot/measure';

export interface SyntheticRunOptions {
  requests: number;
  tokensPerRequest: number;
  /** Makes the timings reproducible (default 1). */
  seed?: number;
  /** Stretches every token gap (a slower server): 1.5 makes them 50% longer (default 1). */
  gapScale?: number;
}

/**
 * A RunResult shaped like a real streamed run: per request a role-only first chunk, one token per
 * chunk with jittered gaps (the most chunks per token, so the most to store), and a trailing
 * usage-only chunk.
 */
export function syntheticRunResult(options: SyntheticRunOptions): RunResult {
  let state = options.seed ?? 1;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const requests: RequestRecord[] = [];
  for (let index = 0; index < options.requests; index++) {
    const n = options.tokensPerRequest + 2;
    const chunkOffsetsUs = new Uint32Array(n);
    const chunkTokens = new Uint16Array(n);
    const chunkKinds = new Uint8Array(n);
    const ttfbUs = 20_000 + Math.floor(random() * 5_000);
    let t = ttfbUs;
    chunkOffsetsUs[0] = t;
    chunkKinds[0] = CHUNK_KIND.empty;
    for (let k = 1; k <= options.tokensPerRequest; k++) {
      t += Math.round((4_000 + Math.floor(random() * 3_000)) * (options.gapScale ?? 1));
      chunkOffsetsUs[k] = t;
      chunkTokens[k] = 1;
      chunkKinds[k] = CHUNK_KIND.content;
    }
    chunkOffsetsUs[n - 1] = t + 50;
    chunkKinds[n - 1] = CHUNK_KIND.empty;
    const startUs = index * 10_000;
    requests.push({
      index,
      warmup: false,
      outcome: 'ok',
      scheduledUs: startUs,
      startUs,
      ttfbUs,
      chunkOffsetsUs,
      chunkTokens,
      chunkKinds,
      tokenSource: 'usage_delta',
      outputTokens: options.tokensPerRequest,
      promptTokens: 512,
      targetPromptTokens: 512,
      responseId: `cmpl-${options.seed ?? 1}-${index}`,
      finishReason: 'length',
      sessionId: null,
      turnIndex: null,
    });
  }
  const last = requests[requests.length - 1];
  const durationUs = last ? last.startUs + last.chunkOffsetsUs[last.chunkOffsetsUs.length - 1] : 0;
  return {
    wallAnchorMs: 1_790_000_000_000,
    monotonicAnchorNs: '123456789012345',
    durationUs,
    requests,
    summary: summarize(requests, { durationUs }),
    client: { eventLoopDelayMs: { p50: 0.5, p99: 2, max: 3, mean: 0.6 }, saturated: false },
    streamOptions: { requested: true, rejectedByServer: false },
    aborted: false,
    transport: 'undici',
    measureVersion: '0.2.0',
    connectBackoff: { outages: 0, pauses: 0, pausedMs: 0, longestOutageMs: 0, gaveUp: false },
    warmUp: { chunks: 0, connections: 0, durationMs: 0 },
  };
}

/**
 * ITL samples (us) straight from one request's stored chunk arrays (uint32 LE offsets, uint16 LE
 * tokens), independently of @teapot/measure: each token chunk's gap split over its tokens.
 */
export function storedItlUs(offsets: Buffer, tokens: Buffer): number[] {
  const samples: number[] = [];
  let previous: number | null = null;
  for (let k = 0; k < offsets.length / 4; k++) {
    const m = tokens.readUInt16LE(2 * k);
    if (m === 0) continue;
    const at = offsets.readUInt32LE(4 * k);
    if (previous !== null) for (let j = 0; j < m; j++) samples.push((at - previous) / m);
    previous = at;
  }
  return samples;
}
