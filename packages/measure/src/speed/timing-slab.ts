/** Bytes per slab: ~700 records of 50 chunks. */
const SLAB_BYTES = 256 * 1024;
/** A record's chunk offsets (u32), tokens (u16) and kinds (u8), one after the other. */
const BYTES_PER_CHUNK = 4 + 2 + 1;

export interface RecordTimings {
  offsetsUs: Uint32Array;
  tokens: Uint16Array;
  kinds: Uint8Array;
}

/**
 * The timing arrays of a run's records, carved out of a few large buffers instead of three buffers of
 * their own per request. A closed loop finishes its requests in waves; at 1024 streams the three small
 * buffers of each (a backing store and its tracking each) were a wave's worth of young objects that
 * survived the next scavenge beside the first tokens. The arrays are views: a reader that needs the
 * bytes reads `byteOffset` and `byteLength` too, and moving a result to another thread moves the slabs
 * (thread-protocol.ts: timingBuffers).
 */
export class TimingSlab {
  private buffer = new ArrayBuffer(0);
  private at = 0;

  /** Zero-filled arrays for a record of `chunks` chunks. */
  take(chunks: number): RecordTimings {
    const bytes = chunks * BYTES_PER_CHUNK;
    if (this.at + bytes > this.buffer.byteLength) {
      this.buffer = new ArrayBuffer(Math.max(SLAB_BYTES, bytes));
      this.at = 0;
    }
    const { buffer, at } = this;
    // u32 first at a multiple of 4, then u16 at a multiple of 2: every view is aligned
    const timings: RecordTimings = {
      offsetsUs: new Uint32Array(buffer, at, chunks),
      tokens: new Uint16Array(buffer, at + 4 * chunks, chunks),
      kinds: new Uint8Array(buffer, at + 6 * chunks, chunks),
    };
    this.at = (at + bytes + 3) & ~3;
    return timings;
  }
}
