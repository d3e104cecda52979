import { CHUNK_KIND, type ChunkKind, type RequestRecord } from '../types';

/** A hand-written chunk: [offset us, tokens, kind]. */
export type ChunkRow = [number, number, ChunkKind];

export const C = CHUNK_KIND.content;
export const R = CHUNK_KIND.reasoning;
export const T = CHUNK_KIND.toolCall;
export const E = CHUNK_KIND.empty;

/** A successful request record built from rows, for metric tests. */
export function recordOf(rows: ChunkRow[], overrides: Partial<RequestRecord> = {}): RequestRecord {
  const chunkTokens = Uint16Array.from(rows, (r) => r[1]);
  let sum = 0;
  for (const t of chunkTokens) sum += t;
  return {
    index: 0,
    warmup: false,
    outcome: 'ok',
    scheduledUs: 0,
    startUs: 0,
    ttfbUs: rows.length > 0 ? rows[0][0] : null,
    chunkOffsetsUs: Uint32Array.from(rows, (r) => r[0]),
    chunkTokens,
    chunkKinds: Uint8Array.from(rows, (r) => r[2]),
    tokenSource: 'usage_delta',
    outputTokens: sum,
    promptTokens: 10,
    targetPromptTokens: 10,
    responseId: null,
    finishReason: 'length',
    sessionId: null,
    turnIndex: null,
    ...overrides,
  };
}
