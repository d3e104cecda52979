/**
 * What the per-token record alone shows about why a run was as fast as it was: works for any server,
 * hosted APIs included. Computed over the run's successful measured requests when the run is stored
 * (`runs.client_diagnostics`). A figure that could not be derived is absent, never zero.
 */
export interface ClientDiagnostics {
  /**
   * Tokens per token-carrying chunk, over the chunks whose count the server reported per chunk
   * (continuous usage stats); absent when no request had per-chunk counts (one token per chunk would
   * be an assumption, not a measurement).
   */
  tokensPerChunkMean?: number;
  tokensPerChunkP99?: number;
  /** Share of those chunks carrying more than one token. */
  multiTokenChunkShare?: number;
  /**
   * Mean tokens per mid-stream chunk (after each request's first token chunk, before its last) when
   * at least MULTI_TOKEN_SHARE_FOR_ESTIMATE of them carry several tokens: a speculative-decoding
   * server streams a step's accepted tokens in one chunk, so this estimates its mean accepted length
   * (vLLM's 1 + accepted / drafts). Absent when the server streams one token per chunk.
   */
  acceptedLengthEstimate?: number;
  /**
   * Share of tokens later than their deadline: token n of a request is due at its TTFT + n x the
   * target TPOT; an early token's slack carries forward, a missed deadline restarts the schedule at
   * the late token (Etalon's fluidity index counts misses the same way, so one stall counts once).
   */
  lateTokenShare?: number;
  /** The target TPOT the deadlines used (ms), and where it came from: the profile's TPOT SLO or the run's median TPOT. */
  deadlineTpotMs?: number;
  deadlineTpotSource?: 'slo' | 'median';
  /** Gaps between consecutive token chunks longer than 5x the run's median ITL. */
  longGaps?: number;
  /**
   * P99 ITL of tokens whose gap (previous chunk to this one) overlapped another request's prefill
   * (its send to its first token), and of those whose gap overlapped none (ms); each absent without
   * samples. Without chunked prefill a server stalls running decodes for a new prompt's prefill.
   */
  itlP99DuringPrefillMs?: number;
  itlP99OutsidePrefillMs?: number;
  /** Share of ITL samples whose gap overlapped another request's prefill. */
  duringPrefillShare?: number;
}
