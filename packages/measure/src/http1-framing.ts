import type { IncomingHttpHeaders } from 'node:http';

/**
 * HTTP/1.1 response framing for the `http1` transport, pure: bytes in, the response head and the
 * body's byte ranges out. No sockets, no timers, so it can be fed any split of a response (the spec
 * checks every split point against the unsplit parse). One parser per connection, reset per response.
 */

export class Http1ParseError extends Error {
  readonly code = 'TEAPOT_HTTP_PARSE';
  constructor(message: string) {
    super(message);
    this.name = 'Http1ParseError';
  }
}

export interface ResponseHead {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The connection may carry another request after this response. */
  keepAlive: boolean;
  /** The server's Keep-Alive `timeout=`, ms; null when it sent none. */
  keepAliveHintMs: number | null;
}

export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4096;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const SEMICOLON = 0x3b;
/** 12 hex digits (16^12 bytes) is far beyond any chunk and still exact in a double. */
const MAX_CHUNK_SIZE_DIGITS = 12;
/** Value of each byte as a hex digit, -1 for any other byte. */
const HEX_DIGIT = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_DIGIT['0123456789abcdef'.charCodeAt(i)] = i;
  HEX_DIGIT['0123456789ABCDEF'.charCodeAt(i)] = i;
}

function invalidChunkSize(byte: number): Http1ParseError {
  return new Http1ParseError(`invalid chunk size: unexpected byte 0x${byte.toString(16)}`);
}

const BODY = { none: 0, chunked: 1, length: 2, untilClose: 3 } as const;
type BodyMode = (typeof BODY)[keyof typeof BODY];

const CHUNK = { size: 0, data: 1, dataCr: 2, dataLf: 3, trailer: 4 } as const;
type ChunkState = (typeof CHUNK)[keyof typeof CHUNK];

/**
 * Frames one response at a time. `readHead` until `head` is set, then `readBody` until `done`;
 * `pieces` collects the body's [start, end) ranges within the bytes passed in, for the caller to copy
 * out (and clear) before it reuses them.
 */
export class Http1ResponseParser {
  head: ResponseHead | null = null;
  /** Body byte ranges of the bytes read so far, as start, end pairs. */
  readonly pieces: number[] = [];
  private partialHead: Buffer | null = null;
  private bodyMode: BodyMode = BODY.none;
  private remaining = 0;
  private chunkState: ChunkState = CHUNK.size;
  /** The chunk-size line read so far: hex digits, whether whitespace ended them, an extension. */
  private sizeDigits = 0;
  private sizeDone = false;
  private inExtension = false;
  private sizeLineBytes = 0;
  /** Bytes of the current trailer line; -1 once the empty line ended the message. */
  private trailerLineBytes = 0;

  reset(): void {
    this.head = null;
    this.partialHead = null;
    this.bodyMode = BODY.none;
    this.remaining = 0;
    this.chunkState = CHUNK.size;
    this.resetSizeLine();
    this.trailerLineBytes = 0;
    this.pieces.length = 0;
  }

  /**
   * Lets go of the head's headers once they were handed on: values are slices of the head's text, so
   * keeping them would keep every streaming response's head alive until its end.
   */
  forgetHeaders(): void {
    if (this.head !== null) this.head.headers = {};
  }

  /** The body ends when the connection closes (no length, not chunked). */
  get endsAtClose(): boolean {
    return this.bodyMode === BODY.untilClose;
  }

  /** The whole response was read. */
  get done(): boolean {
    if (this.head === null) return false;
    if (this.bodyMode === BODY.none) return true;
    if (this.bodyMode === BODY.length) return this.remaining === 0;
    return this.bodyMode === BODY.chunked && this.chunkState === CHUNK.trailer && this.trailerLineBytes < 0;
  }

  /**
   * Reads header bytes from `at`; returns where the head ended, or `end` when it is incomplete. A 1xx
   * head is skipped (the caller calls again); `head` is set once the final head is read.
   */
  readHead(buffer: Buffer, at: number, end: number): number {
    const previous = this.partialHead;
    const bytes =
      previous === null ? buffer.subarray(at, end) : Buffer.concat([previous, buffer.subarray(at, end)]);
    // the terminator may straddle the previous read: search from just before where the new bytes start
    const terminator = bytes.indexOf(
      '\r\n\r\n',
      previous === null ? 0 : Math.max(0, previous.length - 3),
      'latin1',
    );
    if (terminator < 0 ? bytes.length > MAX_HEAD_BYTES : terminator + 4 > MAX_HEAD_BYTES)
      throw new Http1ParseError(`response headers exceed ${MAX_HEAD_BYTES} bytes`);
    if (terminator < 0) {
      this.partialHead = Buffer.from(bytes);
      return end;
    }
    const consumed = terminator + 4 - (previous === null ? 0 : previous.length);
    const text = bytes.toString('latin1', 0, terminator);
    this.partialHead = null;
    this.parseHead(text);
    return at + consumed;
  }

  private parseHead(text: string): void {
    const lines = text.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (statusLine === null)
      throw new Http1ParseError(`not an HTTP/1.x status line: ${JSON.stringify(lines[0].slice(0, 80))}`);
    const status = Number(statusLine[2]);
    // A dictionary from the start (no prototype): each server's own set of header names would give
    // the object its own shape, and code compiled for the warm-up's shape was recompiled at a run's
    // first response (--trace-opt: parseHead, "wrong map").
    const headers: IncomingHttpHeaders = Object.create(null) as IncomingHttpHeaders;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon <= 0)
        throw new Http1ParseError(`malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const previous = headers[name];
      if (previous === undefined) headers[name] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else headers[name] = name === 'set-cookie' ? [previous, value] : `${previous}, ${value}`;
    }
    // 1xx (100 Continue, 103 Early Hints) precede the real response; 101 would switch protocols.
    if (status >= 100 && status < 200 && status !== 101) return;

    const connectionHeader = String(headers.connection ?? '').toLowerCase();
    let keepAlive =
      statusLine[1] === '1' ? !connectionHeader.includes('close') : connectionHeader.includes('keep-alive');
    const hint = /timeout=(\d+)/i.exec(String(headers['keep-alive'] ?? ''));
    const transferEncoding = String(headers['transfer-encoding'] ?? '').toLowerCase();
    const contentLength = headers['content-length'];
    if (status === 204 || status === 304 || status === 101) {
      this.bodyMode = BODY.none;
    } else if (transferEncoding !== '') {
      if (!/(^|,)\s*chunked\s*$/.test(transferEncoding))
        throw new Http1ParseError(`unsupported transfer-encoding: ${transferEncoding}`);
      this.bodyMode = BODY.chunked;
    } else if (contentLength !== undefined) {
      if (!/^\d+$/.test(String(contentLength)))
        throw new Http1ParseError(`invalid content-length: ${String(contentLength)}`);
      this.bodyMode = BODY.length;
      this.remaining = Number(contentLength);
    } else {
      this.bodyMode = BODY.untilClose;
      keepAlive = false;
    }
    this.head = {
      status,
      statusText: statusLine[3] ?? '',
      headers,
      keepAlive,
      keepAliveHintMs: hint === null ? null : Number(hint[1]) * 1000,
    };
  }

  private resetSizeLine(): void {
    this.sizeDigits = 0;
    this.sizeDone = false;
    this.inExtension = false;
    this.sizeLineBytes = 0;
  }

  /** Frames body bytes from `at`, noting their ranges in `pieces`; returns where the response ends, or `end`. */
  readBody(buffer: Buffer, at: number, end: number): number {
    const { pieces } = this;
    if (this.bodyMode === BODY.untilClose) {
      if (end > at) pieces.push(at, end);
      return end;
    }
    if (this.bodyMode === BODY.length) {
      const take = Math.min(this.remaining, end - at);
      if (take > 0) pieces.push(at, at + take);
      this.remaining -= take;
      return at + take;
    }
    if (this.bodyMode === BODY.none) return at;
    while (at < end) {
      switch (this.chunkState) {
        case CHUNK.size: {
          // One chunk-size line per token chunk: read it byte by byte, no string.
          const byte = buffer[at++];
          if (++this.sizeLineBytes > MAX_CHUNK_LINE_BYTES)
            throw new Http1ParseError('chunk size line too long');
          if (byte === LF) {
            if (this.sizeDigits === 0) throw invalidChunkSize(byte);
            this.resetSizeLine();
            if (this.remaining === 0) {
              this.chunkState = CHUNK.trailer;
              this.trailerLineBytes = 0;
            } else {
              this.chunkState = CHUNK.data;
            }
          } else if (this.inExtension) {
            // a chunk extension (";name=value") is ignored up to the end of the line
          } else if (byte === SEMICOLON) {
            if (this.sizeDigits === 0) throw invalidChunkSize(byte);
            this.inExtension = true;
          } else if (byte === SPACE || byte === TAB || byte === CR) {
            if (this.sizeDigits > 0) this.sizeDone = true;
          } else {
            const digit = HEX_DIGIT[byte];
            if (digit < 0 || this.sizeDone || this.sizeDigits >= MAX_CHUNK_SIZE_DIGITS)
              throw invalidChunkSize(byte);
            this.remaining = this.remaining * 16 + digit;
            this.sizeDigits++;
          }
          break;
        }
        case CHUNK.data: {
          const take = Math.min(this.remaining, end - at);
          pieces.push(at, at + take);
          this.remaining -= take;
          at += take;
          if (this.remaining === 0) this.chunkState = CHUNK.dataCr;
          break;
        }
        case CHUNK.dataCr:
        case CHUNK.dataLf: {
          const byte = buffer[at++];
          if (this.chunkState === CHUNK.dataCr && byte === CR) this.chunkState = CHUNK.dataLf;
          else if (byte === LF) this.chunkState = CHUNK.size;
          else throw new Http1ParseError('chunk data not followed by CRLF');
          break;
        }
        case CHUNK.trailer: {
          // trailer fields are ignored; an empty line ends the message
          const byte = buffer[at++];
          if (byte === LF) {
            if (this.trailerLineBytes === 0) {
              this.trailerLineBytes = -1;
              return at;
            }
            this.trailerLineBytes = 0;
          } else if (byte !== CR) {
            if (++this.trailerLineBytes > MAX_HEAD_BYTES)
              throw new Http1ParseError('trailer section too long');
          }
          break;
        }
      }
    }
    return at;
  }
}
