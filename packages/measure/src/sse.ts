const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/** One dispatched server-sent event. `event` is 'message' unless the stream named it. */
export interface SseEvent {
  event: string;
  data: string;
}

export type SseListener = (event: string, data: string) => void;

/** A `message` event with one data line, given as its undecoded bytes, valid only during the call. */
export type SseBytesListener = (bytes: Buffer, start: number, end: number) => void;

/** A line grew past the parser's limit: the stream is not SSE (or is hostile). */
export class SseLineTooLongError extends Error {
  constructor(limit: number) {
    super(`SSE line longer than ${limit} bytes`);
    this.name = 'SseLineTooLongError';
  }
}

function toBuffer(bytes: Uint8Array | string): Buffer {
  if (typeof bytes === 'string') return Buffer.from(bytes, 'utf8');
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function fieldIs(buf: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * Incremental parser for text/event-stream (WHATWG "server-sent events") that works on bytes, so an
 * event, a line or a UTF-8 character split across reads is reassembled before decoding. Lines end in
 * LF, CRLF or CR (also a CR ending one read and its LF starting the next). Events are dispatched
 * synchronously from `push`, so the caller can stamp them with the arrival time of that read.
 *
 * Deviations from the browser algorithm, on purpose: an event with an `event:` field but no data is
 * still dispatched (an `event: error` must not vanish), and at `end()` a pending event whose lines
 * were complete is dispatched even without the closing blank line. A partial last line is dropped and
 * reported by `end()`.
 */
export class SseParser {
  private rest: Buffer | null = null;
  private skipLeadingLf = false;
  private atStreamStart = true;
  private data = '';
  private hasData = false;
  private eventType = '';
  /** The single data line of the pending event, not decoded yet (only with `onMessageBytes`). */
  private dataBytes: Buffer | null = null;
  private dataStart = 0;
  private dataEnd = 0;

  /**
   * With `onMessageBytes`, an unnamed event of one data line completed within one read goes there
   * undecoded instead of to `onEvent`, so that the caller can read it without building a string.
   */
  constructor(
    private readonly onEvent: SseListener,
    private readonly maxLineBytes = 8 * 1024 * 1024,
    private readonly onMessageBytes?: SseBytesListener,
  ) {}

  /** Forgets the stream so far, to parse a new one: a run reuses one parser for many requests. */
  reset(): void {
    this.rest = null;
    this.skipLeadingLf = false;
    this.atStreamStart = true;
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.dataBytes = null;
  }

  push(bytes: Uint8Array | string): void {
    try {
      this.lines(toBuffer(bytes));
    } finally {
      // the bytes may be reused by the caller after this read
      this.decodeData();
    }
  }

  private lines(bytes: Buffer): void {
    let buf = bytes;
    if (this.rest !== null) {
      buf = Buffer.concat([this.rest, buf]);
      this.rest = null;
    }
    let pos = 0;
    if (this.atStreamStart && buf.length > 0) {
      if (buf.length < 3 && buf[0] === 0xef) {
        this.rest = buf;
        return;
      }
      this.atStreamStart = false;
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    if (this.skipLeadingLf && pos < buf.length) {
      if (buf[pos] === LF) pos++;
      this.skipLeadingLf = false;
    }
    const n = buf.length;
    let nextCr = buf.indexOf(CR, pos);
    while (pos < n) {
      const nextLf = buf.indexOf(LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = buf.indexOf(CR, pos);
      let eol: number;
      let after: number;
      if (nextCr !== -1 && (nextLf === -1 || nextCr < nextLf)) {
        eol = nextCr;
        if (nextCr + 1 === n) {
          after = n;
          this.skipLeadingLf = true;
        } else {
          after = buf[nextCr + 1] === LF ? nextCr + 2 : nextCr + 1;
        }
      } else if (nextLf !== -1) {
        eol = nextLf;
        after = nextLf + 1;
      } else {
        if (n - pos > this.maxLineBytes) throw new SseLineTooLongError(this.maxLineBytes);
        this.rest = buf.subarray(pos);
        return;
      }
      this.line(buf, pos, eol);
      pos = after;
    }
  }

  /** Ends the stream: dispatches a complete pending event; returns how many bytes of a partial line were dropped. */
  end(): number {
    const dropped = this.rest === null ? 0 : this.rest.length;
    this.rest = null;
    this.dispatch();
    return dropped;
  }

  private line(buf: Buffer, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    if (buf[start] === COLON) return;
    let colon = buf.indexOf(COLON, start);
    if (colon === -1 || colon > end) colon = end;
    let valueStart = colon + 1;
    if (valueStart < end && buf[valueStart] === SPACE) valueStart++;
    if (valueStart > end) valueStart = end;
    if (fieldIs(buf, start, colon, 'data')) {
      if (!this.hasData && this.onMessageBytes !== undefined) {
        this.dataBytes = buf;
        this.dataStart = valueStart;
        this.dataEnd = end;
        this.hasData = true;
        return;
      }
      this.decodeData();
      const value = buf.toString('utf8', valueStart, end);
      this.data = this.hasData ? this.data + '\n' + value : value;
      this.hasData = true;
    } else if (fieldIs(buf, start, colon, 'event')) {
      this.eventType = buf.toString('utf8', valueStart, end);
    }
  }

  private decodeData(): void {
    if (this.dataBytes === null) return;
    this.data = this.dataBytes.toString('utf8', this.dataStart, this.dataEnd);
    this.dataBytes = null;
  }

  private dispatch(): void {
    if (!this.hasData && this.eventType === '') return;
    const bytes = this.dataBytes;
    if (bytes !== null && this.eventType === '' && this.onMessageBytes !== undefined) {
      this.dataBytes = null;
      this.data = '';
      this.hasData = false;
      this.onMessageBytes(bytes, this.dataStart, this.dataEnd);
      return;
    }
    this.decodeData();
    const event = this.eventType === '' ? 'message' : this.eventType;
    const data = this.data;
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.onEvent(event, data);
  }
}

/** Parses a whole stream given as its reads; for tests and offline use. */
export function parseSse(reads: Iterable<Uint8Array | string>): { events: SseEvent[]; droppedBytes: number } {
  const events: SseEvent[] = [];
  const parser = new SseParser((event, data) => events.push({ event, data }));
  for (const read of reads) parser.push(read);
  const droppedBytes = parser.end();
  return { events, droppedBytes };
}
