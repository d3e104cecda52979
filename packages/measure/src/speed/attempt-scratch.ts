import { ChunkFields } from '../chunk-scan';
import { SseParser } from '../sse';
import { objectArray } from './object-array';

const INITIAL_CHUNK_CAPACITY = 64;

/** What the parser of a scratch reports to: the attempt using it. */
export interface ScratchUser {
  onEvent(event: string, data: string): void;
  onMessageBytes(bytes: Buffer, start: number, end: number): void;
}

/**
 * What an attempt works in while its response streams: the SSE parser, the scanned fields and the
 * per-chunk arrays, which it copies into its record when it ends. One attempt at a time uses it.
 */
export class AttemptScratch {
  user: ScratchUser | null = null;
  readonly parser = new SseParser(
    (event, data) => this.user?.onEvent(event, data),
    undefined,
    (bytes, start, end) => this.user?.onMessageBytes(bytes, start, end),
  );
  readonly fields = new ChunkFields();
  offsetsUs = new Uint32Array(INITIAL_CHUNK_CAPACITY);
  kinds = new Uint8Array(INITIAL_CHUNK_CAPACITY);
  /** Cumulative usage.completion_tokens per chunk, NO_USAGE where none. */
  usage = new Int32Array(INITIAL_CHUNK_CAPACITY);

  /** Doubles the chunk arrays, keeping the first `count` entries. */
  grow(count: number): void {
    const capacity = this.offsetsUs.length * 2;
    const offsetsUs = new Uint32Array(capacity);
    offsetsUs.set(this.offsetsUs.subarray(0, count));
    this.offsetsUs = offsetsUs;
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds.subarray(0, count));
    this.kinds = kinds;
    const usage = new Int32Array(capacity);
    usage.set(this.usage.subarray(0, count));
    this.usage = usage;
  }
}

/**
 * The scratches of a run's finished attempts, for its next ones: a new request then allocates almost
 * none of its working state. A closed loop starts its requests in waves; at 1024 streams a wave's
 * parsers and arrays, built anew, were ~1 KB a request that survived the young generation's next
 * scavenge and made it a 3.5-6 ms pause beside the first tokens. Reused, they live in the old
 * generation, which a scavenge does not copy.
 */
export class ScratchShelf {
  private readonly free: AttemptScratch[] = objectArray();

  take(user: ScratchUser): AttemptScratch {
    const scratch = this.free.pop() ?? new AttemptScratch();
    scratch.parser.reset();
    scratch.fields.reset();
    scratch.user = user;
    return scratch;
  }

  /** Back on the shelf; the attempt that gives it up must not touch it again. */
  give(scratch: AttemptScratch): void {
    scratch.user = null;
    this.free.push(scratch);
  }
}
