import { percentile, type ClientDiagnostics, type RunSummary } from '@teapot/run-definitions';
import type { RequestRecord } from './types';

/** A gap between token chunks longer than this many times the run's median ITL is a long gap. */
export const LONG_GAP_FACTOR = 5;
/** The share of mid-stream chunks carrying several tokens from which the server is taken to bundle tokens. */
export const MULTI_TOKEN_SHARE_FOR_ESTIMATE = 0.05;

export interface ClientDiagnosticsOptions {
  /** The profile's TPOT SLO (ms): the deadlines' target when set, else the run's median TPOT. */
  tpotSloMs?: number;
}

/**
 * The run's client diagnostics (see ClientDiagnostics for each figure's definition), from its raw
 * records and its summary (whose median ITL and TPOT are the run's own). Null when no successful
 * measured request has a token. O(n log n) in the run's tokens: prefill intervals are merged once
 * and each gap finds its overlap by binary search; the P99s sort their samples.
 */
export function clientDiagnostics(
  requests: readonly RequestRecord[],
  summary: Pick<RunSummary, 'itlMs' | 'tpotMs'>,
  options: ClientDiagnosticsOptions = {},
): ClientDiagnostics | null {
  const prefills = mergedPrefills(requests);
  const target = deadlineTarget(summary, options);
  const longGapUs =
    summary.itlMs && summary.itlMs.p50 > 0 ? LONG_GAP_FACTOR * summary.itlMs.p50 * 1000 : null;
  const chunks = new ChunkCounts();
  const during = new Samples();
  const outside = new Samples();
  let requestsWithTokens = 0;
  let lateTokens = 0;
  let tokensAfterFirst = 0;
  let longGaps = 0;
  for (const r of requests) {
    if (r.warmup || r.outcome !== 'ok') continue;
    const offsets = r.chunkOffsetsUs;
    const tokens = r.chunkTokens;
    const first = tokens.findIndex((m) => m > 0);
    if (first === -1) continue;
    requestsWithTokens++;
    const last = tokens.findLastIndex((m) => m > 0);
    const perChunk = r.tokenSource === 'usage_delta';
    if (perChunk) chunks.add(tokens[first], false);
    let previous = offsets[first];
    let deadline = target ? previous + (tokens[first] - 1) * target.us : 0;
    tokensAfterFirst += tokens[first] - 1;
    for (let k = first + 1; k <= last; k++) {
      const m = tokens[k];
      if (m === 0) continue;
      const at = offsets[k];
      const gap = at - previous;
      if (perChunk) chunks.add(m, k < last);
      const overlaps = prefills.overlaps(r.startUs + previous, r.startUs + at);
      (overlaps ? during : outside).push(gap / m, m);
      if (longGapUs !== null && gap > longGapUs) longGaps++;
      if (target) {
        deadline += target.us;
        if (at > deadline) {
          lateTokens++;
          deadline = at;
        }
        deadline += (m - 1) * target.us;
      }
      tokensAfterFirst += m;
      previous = at;
    }
  }
  if (requestsWithTokens === 0) return null;
  const diagnostics: ClientDiagnostics = { ...chunks.figures() };
  if (target && tokensAfterFirst > 0) {
    diagnostics.lateTokenShare = lateTokens / tokensAfterFirst;
    diagnostics.deadlineTpotMs = target.us / 1000;
    diagnostics.deadlineTpotSource = target.source;
  }
  if (longGapUs !== null) diagnostics.longGaps = longGaps;
  const duringP99 = during.p99Ms();
  const outsideP99 = outside.p99Ms();
  if (duringP99 !== null) diagnostics.itlP99DuringPrefillMs = duringP99;
  if (outsideP99 !== null) diagnostics.itlP99OutsidePrefillMs = outsideP99;
  if (during.length + outside.length > 0)
    diagnostics.duringPrefillShare = during.length / (during.length + outside.length);
  return diagnostics;
}

function deadlineTarget(
  summary: Pick<RunSummary, 'tpotMs'>,
  options: ClientDiagnosticsOptions,
): { us: number; source: 'slo' | 'median' } | null {
  if (options.tpotSloMs !== undefined && options.tpotSloMs > 0)
    return { us: options.tpotSloMs * 1000, source: 'slo' };
  const median = summary.tpotMs?.p50;
  return median !== undefined && median > 0 ? { us: median * 1000, source: 'median' } : null;
}

/**
 * Every request's prefill (its send to its first token chunk, on the run's clock) merged into
 * disjoint intervals sorted by start, so their ends ascend too. Requests of any outcome count,
 * warm-up included: each loaded the server while it waited for its first token.
 */
function mergedPrefills(requests: readonly RequestRecord[]): {
  overlaps(from: number, to: number): boolean;
} {
  const intervals: Array<[number, number]> = [];
  for (const r of requests) {
    const first = r.chunkTokens.findIndex((m) => m > 0);
    if (first !== -1) intervals.push([r.startUs, r.startUs + r.chunkOffsetsUs[first]]);
  }
  intervals.sort((a, b) => a[0] - b[0]);
  const starts: number[] = [];
  const ends: number[] = [];
  for (const [start, end] of intervals) {
    if (ends.length > 0 && start <= ends[ends.length - 1]) {
      ends[ends.length - 1] = Math.max(ends[ends.length - 1], end);
    } else {
      starts.push(start);
      ends.push(end);
    }
  }
  return {
    /** Whether the gap (from, to] meets a prefill [start, end): the first interval ending after `from` starts before `to`. */
    overlaps(from: number, to: number): boolean {
      let lo = 0;
      let hi = ends.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ends[mid] > from) hi = mid;
        else lo = mid + 1;
      }
      return lo < ends.length && starts[lo] < to;
    },
  };
}

/** Tokens per chunk: their distribution (counted per value: a chunk carries at most 65,535), and the mid-stream chunks the acceptance estimate reads. */
class ChunkCounts {
  private readonly byCount = new Map<number, number>();
  private chunks = 0;
  private tokens = 0;
  private multi = 0;
  private midChunks = 0;
  private midTokens = 0;
  private midMulti = 0;

  /** A token chunk of `m` tokens; `midStream` after the request's first token chunk and before its last. */
  add(m: number, midStream: boolean): void {
    this.byCount.set(m, (this.byCount.get(m) ?? 0) + 1);
    this.chunks++;
    this.tokens += m;
    if (m > 1) this.multi++;
    if (!midStream) return;
    this.midChunks++;
    this.midTokens += m;
    if (m > 1) this.midMulti++;
  }

  figures(): Pick<
    ClientDiagnostics,
    'tokensPerChunkMean' | 'tokensPerChunkP99' | 'multiTokenChunkShare' | 'acceptedLengthEstimate'
  > {
    const n = this.chunks;
    if (n === 0) return {};
    const bundles = this.midChunks > 0 && this.midMulti / this.midChunks >= MULTI_TOKEN_SHARE_FOR_ESTIMATE;
    return {
      tokensPerChunkMean: this.tokens / n,
      tokensPerChunkP99: this.quantile(0.99),
      multiTokenChunkShare: this.multi / n,
      ...(bundles ? { acceptedLengthEstimate: this.midTokens / this.midChunks } : {}),
    };
  }

  /** numpy's linear percentile over the counts, as `percentile` of the sorted chunk sizes gives it. */
  private quantile(q: number): number {
    const h = (this.chunks - 1) * q;
    const lo = Math.floor(h);
    const at = (rank: number): number => {
      let seen = 0;
      for (const [value, count] of this.sorted) {
        seen += count;
        if (rank < seen) return value;
      }
      return this.sorted[this.sorted.length - 1][0];
    };
    const below = at(lo);
    return lo + 1 < this.chunks ? below + (h - lo) * (at(lo + 1) - below) : below;
  }

  private get sorted(): Array<[number, number]> {
    return [...this.byCount].sort((a, b) => a[0] - b[0]);
  }
}

/** ITL samples (us), each chunk's gap split evenly over its tokens as the run's ITL is. */
class Samples {
  private values = new Float64Array(1024);
  length = 0;

  push(value: number, times: number): void {
    if (this.length + times > this.values.length) {
      const grown = new Float64Array(Math.max(this.values.length * 2, this.length + times));
      grown.set(this.values.subarray(0, this.length));
      this.values = grown;
    }
    this.values.fill(value, this.length, this.length + times);
    this.length += times;
  }

  p99Ms(): number | null {
    if (this.length === 0) return null;
    return percentile(this.values.subarray(0, this.length).sort(), 0.99) / 1000;
  }
}
