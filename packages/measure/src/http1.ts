import type * as net from 'node:net';
import type { Dispatcher } from 'undici';
import { Connection, Exchange, Http1Error, type ConnectionOwner } from './http1-connection';
import type { StreamRequestOptions, StreamTransport } from './transport';
import { objectArray } from './speed/object-array';

/**
 * teapot's own HTTP/1.1 client for streamed completions: the `http1` transport of a run.
 *
 * Why not undici here: at 512 streams a server writes one chunk to every stream per decode step, in
 * a burst, at ~25 us per write. undici reads through Node's stream machinery and its llhttp parser at
 * ~40 us per chunk, so every burst builds a queue in the kernel and the last chunks of a step are read
 * (and timestamped) milliseconds late. Here each socket reads with `onread` into one shared buffer:
 * the callback runs straight from libuv's read, frames the HTTP/1.1 body in a few comparisons per
 * byte (http1-framing.ts) and copies out only the body bytes, so a chunk costs less to read than it
 * costs to write. Both transports drive the same handler interface.
 */

export { Http1Error } from './http1-connection';

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

const READ_BUFFER_BYTES = 64 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Close an idle connection this long before the server's announced keep-alive timeout would. */
const KEEP_ALIVE_MARGIN_MS = 1000;

export class Http1Pool implements StreamTransport, ConnectionOwner {
  private readonly secure: boolean;
  private readonly host: string;
  private readonly port: number;
  private readonly hostHeader: string;
  /** The latest request line and headers, as text (see requestHead); a run's requests share them. */
  private lastHead: { method: string; path: string; headers: object; text: string } | null = null;
  private readonly all = new Set<Connection>();
  private readonly idle: Connection[] = objectArray();
  /** Requests waiting for a connection: at most the few a full pool holds back. */
  private readonly queue: Exchange[] = objectArray();
  private destroyed = false;
  /** Connections whose response ended in this poll phase, and their keep-alive hints (see releaseSoon). */
  private readonly releasing: Connection[] = objectArray();
  private readonly releasingHints: Array<number | null> = objectArray();
  private releaseScheduled = false;
  private readonly releasePendingBound = () => this.releasePending();
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

  /**
   * Opens connections up to `count` (within the pool's limit) and waits until each has connected or
   * failed, so that no measured request pays for a connection set-up. Returns how many are open.
   */
  async preconnect(count: number): Promise<number> {
    const limit = this.options.connections ?? Infinity;
    const opening: Connection[] = [];
    while (!this.destroyed && this.all.size < Math.min(count, limit)) opening.push(this.open());
    const errors = await Promise.all(opening.map((connection) => connection.whenConnected()));
    return errors.filter((error) => error === null).length;
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
    // a connection whose release is pending is as good as idle: never open one for want of it
    if (this.idle.length === 0 && this.releasing.length > 0 && this.queue.length > 0) this.releasePending();
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

  /** A connection finished its exchange and can take another. */
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

  /**
   * A response ended in a read callback: its connection is released in the check phase. Releasing
   * arms the connection's idle timer and may write the next queued request, ~10 us that the poll
   * phase would otherwise spend while other sockets' reads wait for their timestamps; at the end of
   * a wave that is every stream's last read, all in the same few steps.
   */
  releaseSoon(connection: Connection, keepAliveHintMs: number | null): void {
    this.releasing.push(connection);
    this.releasingHints.push(keepAliveHintMs);
    if (!this.releaseScheduled) {
      this.releaseScheduled = true;
      setImmediate(this.releasePendingBound);
    }
  }

  private releasePending(): void {
    this.releaseScheduled = false;
    const connections = this.releasing.splice(0);
    const hints = this.releasingHints.splice(0);
    for (let i = 0; i < connections.length; i++) {
      // closed meanwhile (forget took it out of `all`): nothing to release
      if (this.all.has(connections[i])) this.release(connections[i], hints[i]);
    }
  }

  /** The connection is gone (closed by either side, failed, or timed out idle). */
  forget(connection: Connection): void {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.pump();
  }

  /** The request line and headers of one request. */
  requestHead(request: StreamRequestOptions, bodyBytes: number): string {
    const { method, path, headers } = request;
    let last = this.lastHead;
    // a run sends every request with the same line and headers: build them once
    if (last === null || last.method !== method || last.path !== path || last.headers !== headers) {
      let head = `${method} ${path} HTTP/1.1\r\n`;
      let hasHost = false;
      for (const name in headers) {
        if (name.toLowerCase() === 'host') hasHost = true;
        head += `${name}: ${headers[name]}\r\n`;
      }
      if (!hasHost) head = head.replace('\r\n', `\r\nhost: ${this.hostHeader}\r\n`);
      last = this.lastHead = { method, path, headers, text: head };
    }
    return `${last.text}content-length: ${bodyBytes}\r\n\r\n`;
  }
}
