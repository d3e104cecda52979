import type { IncomingHttpHeaders } from 'node:http';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';

/**
 * teapot's own HTTP/1.1 client for streamed completions: the `http1` transport of a run.
 *
 * Why not undici here: at 512 streams a server writes one chunk to every stream per decode step, in
 * a burst, at ~25 us per write. undici reads through Node's stream machinery and its llhttp parser at
 * ~40 us per chunk, so every burst builds a queue in the kernel and the last chunks of a step are read
 * (and timestamped) milliseconds late. Here each socket reads with `onread` into one shared buffer:
 * the callback runs straight from libuv's read, frames the HTTP/1.1 body in a few comparisons per
 * byte and copies out only the body bytes, so a chunk costs less to read than it costs to write.
 * undici stays available as the `undici` transport; both drive the same handler interface.
 */

/** A request as a transport takes it; undici's Pool accepts the same shape. */
export interface StreamRequestOptions {
  path: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  headersTimeout?: number;
  bodyTimeout?: number;
}

/** What a run needs of a connection pool: undici's Pool and Http1Pool both fit. */
export interface StreamTransport {
  dispatch(request: StreamRequestOptions, handler: Dispatcher.DispatchHandler): unknown;
  destroy(): Promise<void>;
}

export interface Http1PoolOptions {
  /** Most connections open at once; null for no limit. */
  connections: number | null;
  /** Idle connections close after this, or sooner when the server's Keep-Alive says so. */
  keepAliveMs: number;
  connectTimeoutMs?: number;
  /** Certificate authorities to trust for https, instead of Node's bundled ones. */
  ca?: string | Buffer;
  /** Resolves the host at connect time in place of dns.lookup (see Target.lookup). */
  lookup?: net.LookupFunction;
}

/** Transport failures carry a code, as Node's socket errors do, so that callers classify by code. */
export class Http1Error extends Error {
  constructor(
    readonly code:
      'TEAPOT_CONNECT_TIMEOUT' | 'TEAPOT_SOCKET_CLOSED' | 'TEAPOT_HTTP_PARSE' | 'TEAPOT_POOL_DESTROYED',
    message: string,
  ) {
    super(message);
    this.name = 'Http1Error';
  }
}

const READ_BUFFER_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4096;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Close an idle connection this long before the server's announced keep-alive timeout would. */
const KEEP_ALIVE_MARGIN_MS = 1000;
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

function invalidChunkSize(byte: number): Http1Error {
  return new Http1Error('TEAPOT_HTTP_PARSE', `invalid chunk size: unexpected byte 0x${byte.toString(16)}`);
}

const BODY = { none: 0, chunked: 1, length: 2, untilClose: 3 } as const;
type BodyMode = (typeof BODY)[keyof typeof BODY];

const CHUNK = { size: 0, data: 1, dataCr: 2, dataLf: 3, trailer: 4 } as const;
type ChunkState = (typeof CHUNK)[keyof typeof CHUNK];

/** One request and its response on one connection. */
class Exchange implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** The request bytes went out: an abort now has to close the connection. */
  written = false;
  /** onResponseEnd or onResponseError was called: nothing more goes to the handler. */
  finished = false;
  connection: Connection | null = null;

  constructor(
    readonly request: StreamRequestOptions,
    readonly handler: Dispatcher.DispatchHandler,
  ) {}

  abort(reason: Error): void {
    if (this.aborted || this.finished) return;
    this.aborted = true;
    this.reason = reason;
    this.connection?.abortExchange(this);
    this.fail(reason);
  }

  pause(): void {
    this.paused = true;
    this.connection?.socket.pause();
  }

  resume(): void {
    this.paused = false;
    this.connection?.socket.resume();
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.handler.onResponseError?.(this, error);
  }

  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.handler.onResponseEnd?.(this, {});
  }
}

export class Http1Pool implements StreamTransport {
  private readonly secure: boolean;
  private readonly host: string;
  private readonly port: number;
  private readonly hostHeader: string;
  private readonly all = new Set<Connection>();
  private readonly idle: Connection[] = [];
  /** Requests waiting for a connection: at most the few a full pool holds back. */
  private readonly queue: Exchange[] = [];
  private destroyed = false;
  /** Shared by every socket: an onread callback consumes the buffer before the next read starts. */
  readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

  constructor(
    origin: URL,
    private readonly options: Http1PoolOptions,
  ) {
    if (origin.protocol !== 'http:' && origin.protocol !== 'https:')
      throw new TypeError(`Http1Pool: http or https origin expected, got ${origin.protocol}`);
    this.secure = origin.protocol === 'https:';
    this.host = origin.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = origin.port === '' ? (this.secure ? 443 : 80) : Number(origin.port);
    this.hostHeader = origin.host;
  }

  dispatch(request: StreamRequestOptions, handler: Dispatcher.DispatchHandler): boolean {
    const exchange = new Exchange(request, handler);
    if (this.destroyed) {
      exchange.fail(new Http1Error('TEAPOT_POOL_DESTROYED', 'the connection pool was closed'));
      return false;
    }
    this.queue.push(exchange);
    this.pump();
    return true;
  }

  /** Closes every connection; requests still queued or running fail. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    const closed = [...this.all].map(
      (connection) => new Promise<void>((resolve) => connection.close(resolve)),
    );
    for (const exchange of this.queue.splice(0))
      exchange.fail(new Http1Error('TEAPOT_POOL_DESTROYED', 'the connection pool was closed'));
    await Promise.all(closed);
  }

  /** Gives queued requests to idle connections, opening new ones up to the limit. */
  private pump(): void {
    while (this.queue.length > 0 && !this.destroyed) {
      if (this.queue[0].aborted) {
        this.queue.shift();
        continue;
      }
      let connection = this.idle.pop();
      if (connection === undefined) {
        const limit = this.options.connections;
        if (limit !== null && this.all.size >= limit) break;
        connection = this.open();
      }
      connection.assign(this.queue.shift()!);
    }
  }

  private open(): Connection {
    const connection = new Connection(this, {
      secure: this.secure,
      host: this.host,
      port: this.port,
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      ca: this.options.ca,
      lookup: this.options.lookup,
    });
    this.all.add(connection);
    return connection;
  }

  /** @internal A connection finished its exchange and can take another. */
  release(connection: Connection, keepAliveHintMs: number | null): void {
    if (this.destroyed) {
      connection.close();
      return;
    }
    const idleMs =
      keepAliveHintMs === null
        ? this.options.keepAliveMs
        : Math.min(this.options.keepAliveMs, Math.max(0, keepAliveHintMs - KEEP_ALIVE_MARGIN_MS));
    if (idleMs <= 0) {
      connection.close();
      return;
    }
    connection.idleFor(idleMs);
    this.idle.push(connection);
    this.pump();
  }

  /** @internal The connection is gone (closed by either side, failed, or timed out idle). */
  forget(connection: Connection): void {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.pump();
  }

  /** @internal The request line and headers of one request. */
  requestHead(request: StreamRequestOptions, bodyBytes: number): string {
    let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
    let hasHost = false;
    for (const name in request.headers) {
      if (name.toLowerCase() === 'host') hasHost = true;
      head += `${name}: ${request.headers[name]}\r\n`;
    }
    if (!hasHost) head = head.replace('\r\n', `\r\nhost: ${this.hostHeader}\r\n`);
    return `${head}content-length: ${bodyBytes}\r\n\r\n`;
  }
}

interface ConnectionTarget {
  secure: boolean;
  host: string;
  port: number;
  connectTimeoutMs: number;
  ca: string | Buffer | undefined;
  lookup: net.LookupFunction | undefined;
}

class Connection {
  readonly socket: net.Socket;
  private connected = false;
  private closed = false;
  private closeError: Error | null = null;
  private exchange: Exchange | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private connectTimer: NodeJS.Timeout | undefined;
  private readonly onClosed: Array<() => void> = [];

  // response state
  private head: Buffer | null = null;
  private headSeen = false;
  private keepAlive = true;
  private keepAliveHintMs: number | null = null;
  private bodyMode: BodyMode = BODY.none;
  private remaining = 0;
  private chunkState: ChunkState = CHUNK.size;
  /** The chunk-size line read so far: hex digits, whether whitespace ended them, an extension. */
  private sizeDigits = 0;
  private sizeDone = false;
  private inExtension = false;
  private sizeLineBytes = 0;
  private trailerLineBytes = 0;
  /** Body byte ranges of the current read, copied out together after it is framed. */
  private readonly pieces: number[] = [];

  constructor(
    private readonly pool: Http1Pool,
    target: ConnectionTarget,
  ) {
    const onread = {
      buffer: pool.readBuffer,
      callback: (length: number, buffer: Uint8Array) => this.onRead(length, buffer as Buffer),
    };
    if (target.secure) {
      this.socket = tls.connect({
        host: target.host,
        port: target.port,
        servername: net.isIP(target.host) === 0 ? target.host : undefined,
        ALPNProtocols: ['http/1.1'],
        ca: target.ca,
        lookup: target.lookup,
        onread,
      } as tls.ConnectionOptions);
      this.socket.once('secureConnect', () => this.onConnect());
    } else {
      this.socket = net.connect({ host: target.host, port: target.port, lookup: target.lookup, onread });
      this.socket.once('connect', () => this.onConnect());
    }
    this.socket.setNoDelay(true);
    this.connectTimer = setTimeout(() => {
      this.socket.destroy(
        new Http1Error('TEAPOT_CONNECT_TIMEOUT', `connect timed out after ${target.connectTimeoutMs} ms`),
      );
    }, target.connectTimeoutMs);
    this.socket.on('error', (error) => (this.closeError ??= error));
    this.socket.on('close', () => this.onClose());
  }

  assign(exchange: Exchange): void {
    clearTimeout(this.idleTimer);
    this.exchange = exchange;
    exchange.connection = this;
    this.resetResponse();
    if (this.connected) this.write(exchange);
  }

  idleFor(ms: number): void {
    this.idleTimer = setTimeout(() => this.close(), ms);
    this.idleTimer.unref();
  }

  close(done?: () => void): void {
    if (done) {
      if (this.closed) done();
      else this.onClosed.push(done);
    }
    this.socket.destroy();
  }

  /** The handler gave up on its exchange: reuse the connection if nothing was sent yet. */
  abortExchange(exchange: Exchange): void {
    if (this.exchange !== exchange) return;
    this.exchange = null;
    if (exchange.written) this.socket.destroy();
    else if (this.connected) this.pool.release(this, this.keepAliveHintMs);
    // not connected yet: onConnect finds no exchange and offers the connection to the pool
  }

  private onConnect(): void {
    clearTimeout(this.connectTimer);
    this.connected = true;
    const exchange = this.exchange;
    if (exchange === null) this.pool.release(this, null);
    else this.write(exchange);
  }

  private write(exchange: Exchange): void {
    // A request starts just before it is written (packages/measure/README.md); the handler reads the clock here.
    exchange.handler.onRequestStart?.(exchange, {});
    if (exchange.aborted) return;
    const body = Buffer.from(exchange.request.body, 'utf8');
    const head = this.pool.requestHead(exchange.request, body.length);
    exchange.written = true;
    this.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  }

  private resetResponse(): void {
    this.head = null;
    this.headSeen = false;
    this.keepAlive = true;
    this.keepAliveHintMs = null;
    this.bodyMode = BODY.none;
    this.remaining = 0;
    this.chunkState = CHUNK.size;
    this.resetSizeLine();
    this.trailerLineBytes = 0;
    this.pieces.length = 0;
  }

  private onRead(length: number, buffer: Buffer): boolean {
    const exchange = this.exchange;
    if (exchange === null || exchange.finished) {
      // Bytes nobody asked for (we never pipeline): the connection's framing can no longer be trusted.
      this.socket.destroy();
      return false;
    }
    // A view bounded to this read: the shared buffer holds older bytes past `length`.
    const bytes = buffer.subarray(0, length);
    let at = 0;
    try {
      while (this.exchange === exchange && !exchange.finished) {
        if (!this.headSeen) {
          if (at >= length) break;
          at = this.readHead(exchange, bytes, at, length);
          continue;
        }
        at = this.readBody(bytes, at, length);
        if (this.bodyDone()) {
          this.flushPieces(exchange, bytes);
          this.finishResponse(exchange, at < length);
          return true;
        }
        if (at >= length) break;
      }
      this.flushPieces(exchange, bytes);
    } catch (error) {
      if (!(error instanceof Http1Error)) throw error;
      this.flushPieces(exchange, bytes);
      this.exchange = null;
      this.socket.destroy();
      exchange.fail(error);
    }
    return true;
  }

  /** Reads header bytes from `at`; returns where the body starts (or `end` when the head is incomplete). */
  private readHead(exchange: Exchange, buffer: Buffer, at: number, end: number): number {
    const bytes =
      this.head === null ? buffer.subarray(at, end) : Buffer.concat([this.head, buffer.subarray(at, end)]);
    const terminator = bytes.indexOf('\r\n\r\n', 0, 'latin1');
    if (terminator < 0) {
      if (bytes.length > MAX_HEAD_BYTES)
        throw new Http1Error('TEAPOT_HTTP_PARSE', `response headers exceed ${MAX_HEAD_BYTES} bytes`);
      this.head = Buffer.from(bytes);
      return end;
    }
    const consumed = terminator + 4 - (this.head === null ? 0 : this.head.length);
    const text = bytes.toString('latin1', 0, terminator);
    this.head = null;
    this.parseHead(exchange, text);
    return at + consumed;
  }

  private parseHead(exchange: Exchange, text: string): void {
    const lines = text.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (statusLine === null)
      throw new Http1Error(
        'TEAPOT_HTTP_PARSE',
        `not an HTTP/1.x status line: ${JSON.stringify(lines[0].slice(0, 80))}`,
      );
    const status = Number(statusLine[2]);
    const headers: IncomingHttpHeaders = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon <= 0)
        throw new Http1Error(
          'TEAPOT_HTTP_PARSE',
          `malformed header line: ${JSON.stringify(line.slice(0, 80))}`,
        );
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const previous = headers[name];
      if (previous === undefined) headers[name] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else headers[name] = name === 'set-cookie' ? [previous, value] : `${previous}, ${value}`;
    }
    // 1xx (100 Continue, 103 Early Hints) precede the real response; 101 would switch protocols.
    if (status >= 100 && status < 200 && status !== 101) return;

    this.headSeen = true;
    const connectionHeader = String(headers.connection ?? '').toLowerCase();
    this.keepAlive =
      statusLine[1] === '1' ? !connectionHeader.includes('close') : connectionHeader.includes('keep-alive');
    const hint = /timeout=(\d+)/i.exec(String(headers['keep-alive'] ?? ''));
    this.keepAliveHintMs = hint === null ? null : Number(hint[1]) * 1000;
    const transferEncoding = String(headers['transfer-encoding'] ?? '').toLowerCase();
    const contentLength = headers['content-length'];
    if (status === 204 || status === 304 || status === 101) {
      this.bodyMode = BODY.none;
    } else if (transferEncoding !== '') {
      if (!/(^|,)\s*chunked\s*$/.test(transferEncoding))
        throw new Http1Error('TEAPOT_HTTP_PARSE', `unsupported transfer-encoding: ${transferEncoding}`);
      this.bodyMode = BODY.chunked;
    } else if (contentLength !== undefined) {
      if (!/^\d+$/.test(String(contentLength)))
        throw new Http1Error('TEAPOT_HTTP_PARSE', `invalid content-length: ${String(contentLength)}`);
      this.bodyMode = BODY.length;
      this.remaining = Number(contentLength);
    } else {
      this.bodyMode = BODY.untilClose;
      this.keepAlive = false;
    }
    exchange.handler.onResponseStart?.(exchange, status, headers, statusLine[3] ?? '');
  }

  private resetSizeLine(): void {
    this.sizeDigits = 0;
    this.sizeDone = false;
    this.inExtension = false;
    this.sizeLineBytes = 0;
  }

  private bodyDone(): boolean {
    if (this.bodyMode === BODY.none) return true;
    if (this.bodyMode === BODY.length) return this.remaining === 0;
    return this.bodyMode === BODY.chunked && this.chunkState === CHUNK.trailer && this.trailerLineBytes < 0;
  }

  /** Frames body bytes from `at`, noting their ranges; returns where the response ends or `end`. */
  private readBody(buffer: Buffer, at: number, end: number): number {
    const { pieces } = this;
    if (this.bodyMode === BODY.untilClose) {
      pieces.push(at, end);
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
            throw new Http1Error('TEAPOT_HTTP_PARSE', 'chunk size line too long');
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
          else throw new Http1Error('TEAPOT_HTTP_PARSE', 'chunk data not followed by CRLF');
          break;
        }
        case CHUNK.trailer: {
          // trailer fields are ignored; an empty line ends the message (trailerLineBytes = -1)
          const byte = buffer[at++];
          if (byte === LF) {
            if (this.trailerLineBytes === 0) {
              this.trailerLineBytes = -1;
              return at;
            }
            this.trailerLineBytes = 0;
          } else if (byte !== CR) {
            if (++this.trailerLineBytes > MAX_HEAD_BYTES)
              throw new Http1Error('TEAPOT_HTTP_PARSE', 'trailer section too long');
          }
          break;
        }
      }
    }
    return at;
  }

  /** Hands the body bytes of this read to the handler in one copy (the read buffer is reused). */
  private flushPieces(exchange: Exchange, buffer: Buffer): void {
    const { pieces } = this;
    if (pieces.length === 0) return;
    let total = 0;
    for (let i = 0; i < pieces.length; i += 2) total += pieces[i + 1] - pieces[i];
    const chunk = Buffer.allocUnsafe(total);
    let offset = 0;
    for (let i = 0; i < pieces.length; i += 2) offset += buffer.copy(chunk, offset, pieces[i], pieces[i + 1]);
    pieces.length = 0;
    if (total > 0 && !exchange.finished) exchange.handler.onResponseData?.(exchange, chunk);
  }

  private finishResponse(exchange: Exchange, extraBytes: boolean): void {
    this.exchange = null;
    exchange.connection = null;
    const reusable = this.keepAlive && !extraBytes;
    exchange.end();
    if (reusable) this.pool.release(this, this.keepAliveHintMs);
    else this.socket.destroy();
  }

  private onClose(): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.idleTimer);
    this.closed = true;
    const exchange = this.exchange;
    this.exchange = null;
    if (exchange !== null && !exchange.finished) {
      if (this.headSeen && this.bodyMode === BODY.untilClose && this.closeError === null) exchange.end();
      else
        exchange.fail(
          this.closeError ??
            new Http1Error(
              'TEAPOT_SOCKET_CLOSED',
              this.headSeen
                ? 'the server closed the connection mid-response'
                : 'the server closed the connection before responding',
            ),
        );
    }
    this.pool.forget(this);
    for (const done of this.onClosed.splice(0)) done();
  }
}
