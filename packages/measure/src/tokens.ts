import { CHUNK_KIND, type TokenCountSource } from './types';

const MAX_CHUNK_TOKENS = 0xffff;

/** Cumulative `usage.completion_tokens` per chunk, or NO_USAGE where the chunk carried none. */
export const NO_USAGE = -1;

/**
 * The largest count a `usage` field may report for one request: above any model's context window
 * (about 10M tokens at most today), far below what the per-chunk Int32Array and the stored int columns
 * hold, so a count past it is a server bug, never a measurement.
 */
export const MAX_USAGE_TOKENS = 2 ** 24;

/** Why a `usage` count cannot be taken as a token count, or null when it can. */
export function invalidUsageCount(
  field: 'completion_tokens' | 'prompt_tokens',
  value: number,
): string | null {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_USAGE_TOKENS) return null;
  return `usage.${field} is ${value}: not a token count (a whole number from 0 to ${MAX_USAGE_TOKENS})`;
}

export interface TokenAttribution {
  tokens: Uint16Array;
  source: TokenCountSource;
}

/**
 * Output tokens per chunk, from the most trustworthy source available. Only chunks with output
 * (content, reasoning, tool call) carry tokens; the rules, in order:
 * 1. `usage_delta`: every output chunk reports cumulative `completion_tokens` (continuous usage stats).
 *    A chunk gets the increase since the previous report. An increase reported on a chunk without
 *    output (e.g. text the server held back) moves to the next output chunk, where the text shows up;
 *    an increase after the last output chunk (e.g. the EOS token) stays unattributed.
 * 2. `usage_final`: only a total N is known and N >= the K output chunks: N is spread evenly,
 *    floor(N/K) each, and the remainder one each to the earliest chunks (deterministic).
 * 3. `chunk`: one token per output chunk.
 */
export function attributeTokens(
  kinds: Uint8Array,
  cumulativeUsage: Int32Array,
  count: number,
  finalCompletionTokens: number | null,
  /** Where the counts go, `count` long and zero-filled. */
  tokens: Uint16Array = new Uint16Array(count),
): TokenAttribution {
  let outputChunks = 0;
  let everyOutputChunkHasUsage = true;
  for (let k = 0; k < count; k++) {
    if (kinds[k] === CHUNK_KIND.empty) continue;
    outputChunks++;
    if (cumulativeUsage[k] === NO_USAGE) everyOutputChunkHasUsage = false;
  }
  if (outputChunks === 0) {
    return { tokens, source: finalCompletionTokens === null ? 'chunk' : 'usage_final' };
  }

  if (everyOutputChunkHasUsage) {
    let previous = 0;
    let carried = 0;
    let attributed = 0;
    for (let k = 0; k < count; k++) {
      const cumulative = cumulativeUsage[k];
      if (cumulative !== NO_USAGE && cumulative > previous) {
        carried += cumulative - previous;
        previous = cumulative;
      }
      if (kinds[k] !== CHUNK_KIND.empty && carried > 0) {
        tokens[k] = Math.min(carried, MAX_CHUNK_TOKENS);
        attributed += carried;
        carried = 0;
      }
    }
    // A server whose usage lags its text would leave every output chunk at zero: not a usable source.
    if (attributed > 0) return { tokens, source: 'usage_delta' };
    tokens.fill(0);
  }

  if (finalCompletionTokens !== null && finalCompletionTokens >= outputChunks) {
    const each = Math.floor(finalCompletionTokens / outputChunks);
    let remainder = finalCompletionTokens - each * outputChunks;
    for (let k = 0; k < count; k++) {
      if (kinds[k] === CHUNK_KIND.empty) continue;
      tokens[k] = Math.min(each + (remainder > 0 ? 1 : 0), MAX_CHUNK_TOKENS);
      if (remainder > 0) remainder--;
    }
    return { tokens, source: 'usage_final' };
  }

  for (let k = 0; k < count; k++) if (kinds[k] !== CHUNK_KIND.empty) tokens[k] = 1;
  return { tokens, source: 'chunk' };
}

/**
 * `total` tokens over the K token-carrying chunks when only the total is known (the tokenizer's count
 * of the streamed text): with total >= K, floor(total/K) each and the remainder one each to the
 * earliest (as `usage_final`); with fewer, one each to chunks spread evenly from the first to the last,
 * so the first and last token chunks (TTFT, E2E) stay where the stream put them. Other chunks get 0.
 */
export function spreadTokens(kinds: Uint8Array, tokens: Uint16Array, total: number): void {
  const chunks: number[] = [];
  for (let k = 0; k < kinds.length; k++) {
    tokens[k] = 0;
    if (kinds[k] !== CHUNK_KIND.empty) chunks.push(k);
  }
  const n = chunks.length;
  if (n === 0 || total === 0) return;
  if (total >= n) {
    const each = Math.floor(total / n);
    const remainder = total - each * n;
    chunks.forEach((k, j) => (tokens[k] = Math.min(each + (j < remainder ? 1 : 0), MAX_CHUNK_TOKENS)));
    return;
  }
  if (total === 1) {
    tokens[chunks[0]] = 1;
    return;
  }
  for (let i = 0; i < total; i++) tokens[chunks[Math.round((i * (n - 1)) / (total - 1))]] = 1;
}
