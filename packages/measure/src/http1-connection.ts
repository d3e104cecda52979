import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { Http1ParseError, Http1ResponseParser } from './http1-framing';
import type { StreamRequestOptions } from './transport';
import { objectArray } from './speed/object-array';

/** Transport failures carry a code, as Node's socket errors do, so that callers classify by code. */
export class Http1Error extends Error {
  constructor(
    readonly code: 'TEAPOT_CONNECT_TIMEOUT' | 'TEAPOT_SOCKET_CLOSED' | 'TEAPOT_POOL_DESTROYED',
    message: string,
  ) {
    super(message);
    this.name = 'Http1Error';
  }
}

/** What a connection needs of its pool. */
export interface ConnectionOwner {
  /** Shared by every socket: an onread callback consumes the buffer before the next read starts. */
  readonly readBuffer: Buffer;
  /** The connection finished its exchange (or connected without one) and can take another. */
  release(connection: Connection, keepAliveHintMs: number | null): void;
  /** As release, once the event loop's poll phase is over: for a response that ended in a read callback. */
  releaseSoon(connection: Connection, keepAliveHintMs: number | null): void;
  /** The connection is gone (closed by either side, failed, or timed out idle). */
  forget(connection: Connection): void;
  /** The request line and headers of one request. */
  requestHead(request: StreamRequestOptions, bodyBytes: number): string;
}

export interface ConnectionTarget {
  secure: boolean;
  host: string;
  port: number;
  connectTimeoutMs: number;
  ca: string | Buffer | undefined;
  lookup: net.LookupFunction | undefined;
}

/** One request and its response on one connection. */
export class Exchange implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** The request bytes went out: an abort now has to close the connection. */
  written = false;
  /** onResponseEnd or onResponseError was called: nothing more goes to the handler. */
  finished = false;
  connection: Connection | null = null;

  constructor(
    /** Dropped once written: a streaming response outlives its request's body by seconds. */
    public request: StreamRequestOptions | null,
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

/** One keep-alive connection: writes one request at a time and frames its response as it is read. */
export class Connection {
  readonly socket: net.Socket;
  private connected = false;
  private closed = false;
  private closeError: Error | null = null;
  private exchange: Exchange | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private connectTimer: NodeJS.Timeout | undefined;
  private readonly onClosed: Array<() => void> = objectArray();
  private readonly onConnected: Array<(error: Error | null) => void> = objectArray();
  private readonly parser = new Http1ResponseParser();

  constructor(
    private readonly owner: ConnectionOwner,
    target: ConnectionTarget,
  ) {
    const onread = {
      buffer: owner.readBuffer,
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

  /** Resolves once connected (null) or closed before that (the error, if any). */
  whenConnected(): Promise<Error | null> {
    if (this.connected) return Promise.resolve(null);
    if (this.closed) return Promise.resolve(this.closeError);
    return new Promise((resolve) => this.onConnected.push(resolve));
  }

  assign(exchange: Exchange): void {
    clearTimeout(this.idleTimer);
    this.exchange = exchange;
    exchange.connection = this;
    this.parser.reset();
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
    else if (this.connected) this.owner.release(this, this.parser.head?.keepAliveHintMs ?? null);
    // not connected yet: onConnect finds no exchange and offers the connection to the pool
  }

  private onConnect(): void {
    clearTimeout(this.connectTimer);
    this.connected = true;
    for (const resolve of this.onConnected.splice(0)) resolve(null);
    const exchange = this.exchange;
    if (exchange === null) this.owner.release(this, null);
    else this.write(exchange);
  }

  private write(exchange: Exchange): void {
    // A request starts just before it is written (packages/measure/README.md); the handler reads the clock here.
    exchange.handler.onRequestStart?.(exchange, {});
    const { request } = exchange;
    if (exchange.aborted || request === null) return;
    const { body } = request;
    const head = this.owner.requestHead(request, Buffer.byteLength(body, 'utf8'));
    exchange.written = true;
    exchange.request = null;
    // One string, encoded once into the socket's write: the head is ASCII (request-headers.ts refuses
    // anything else in a value; a URL path is percent-encoded), so utf8 gives it the same bytes.
    this.socket.write(head + body, 'utf8');
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
    const { parser } = this;
    let at = 0;
    try {
      while (this.exchange === exchange && !exchange.finished) {
        if (parser.head === null) {
          if (at >= length) break;
          at = parser.readHead(bytes, at, length);
          const head = parser.head as Http1ResponseParser['head'];
          if (head !== null) {
            exchange.handler.onResponseStart?.(exchange, head.status, head.headers, head.statusText);
            parser.forgetHeaders();
          }
          continue;
        }
        at = parser.readBody(bytes, at, length);
        if (parser.done) {
          this.flushPieces(exchange, bytes);
          this.finishResponse(exchange, at < length);
          return true;
        }
        if (at >= length) break;
      }
      this.flushPieces(exchange, bytes);
    } catch (error) {
      if (!(error instanceof Http1ParseError)) throw error;
      this.flushPieces(exchange, bytes);
      this.exchange = null;
      this.socket.destroy();
      exchange.fail(error);
    }
    return true;
  }

  /** Hands the body bytes of this read to the handler in one copy (the read buffer is reused). */
  private flushPieces(exchange: Exchange, buffer: Buffer): void {
    const { pieces } = this.parser;
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
    const head = this.parser.head;
    const reusable = head !== null && head.keepAlive && !extraBytes;
    // released before the handler hears of the end, so that a request it sends from there can have it
    if (reusable) this.owner.releaseSoon(this, head.keepAliveHintMs);
    exchange.end();
    if (!reusable) this.socket.destroy();
  }

  private onClose(): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.idleTimer);
    this.closed = true;
    for (const resolve of this.onConnected.splice(0)) resolve(this.closeError ?? new Error('closed'));
    const exchange = this.exchange;
    this.exchange = null;
    if (exchange !== null && !exchange.finished) {
      const headSeen = this.parser.head !== null;
      if (headSeen && this.parser.endsAtClose && this.closeError === null) exchange.end();
      else
        exchange.fail(
          this.closeError ??
            new Http1Error(
              'TEAPOT_SOCKET_CLOSED',
              headSeen
                ? 'the server closed the connection mid-response'
                : 'the server closed the connection before responding',
            ),
        );
    }
    this.owner.forget(this);
    for (const done of this.onClosed.splice(0)) done();
  }
}
