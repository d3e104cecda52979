/** Buckets per power of two: each about 1.1% wide. */
const SUB_BUCKETS = 64;
/** Powers of two covered, from 1 ns: up to 2^36 ns (69 s); above, the last bucket (max stays exact). */
const OCTAVES = 36;
const BUCKETS = SUB_BUCKETS * OCTAVES;

/**
 * The histogram of the read-lag estimate (ArrivalInbox.lagNs), which the read path records into on
 * every data read: log-linear buckets, and the exact maximum. Ours rather than node:perf_hooks'
 * RecordableHistogram: each of those is built with a map of its own, so the read path, optimized on
 * the histogram of one run (a warm-up rehearsal), deoptimized at the first read of the next, the
 * measured run's included (--trace-deopt: "wrong map" in onResponseData at the record call).
 */
export class LagHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  count = 0;
  /** A double from birth (see SendPacer.turnEndsMs). */
  private largest = Number.NEGATIVE_INFINITY;

  record(ns: number): void {
    const value = ns < 1 ? 1 : ns;
    const bucket = Math.floor(Math.log2(value) * SUB_BUCKETS);
    this.counts[bucket < BUCKETS ? bucket : BUCKETS - 1]++;
    this.count++;
    if (value > this.largest) this.largest = value;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.largest = Number.NEGATIVE_INFINITY;
  }

  /** The largest value recorded, exactly; 0 when none was. */
  get max(): number {
    return this.count === 0 ? 0 : this.largest;
  }

  /**
   * The nearest-rank `p`th percentile, to its bucket's width: the upper edge of the bucket holding
   * the value of rank ceil(p/100 x count), never above the maximum; 0 when nothing was recorded.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      seen += this.counts[bucket];
      if (seen < rank) continue;
      // the last bucket also holds everything past the range: its edge is the maximum
      return bucket === BUCKETS - 1
        ? this.largest
        : Math.min(this.largest, 2 ** ((bucket + 1) / SUB_BUCKETS));
    }
    return this.largest;
  }
}
