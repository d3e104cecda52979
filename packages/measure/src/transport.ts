import type { LookupFunction } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import { Http1Pool } from './http1';
import type { Transport } from './types';

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
  /** Opens up to `count` connections ahead of the first request; resolves with how many are open. */
  preconnect?(count: number): Promise<number>;
}

export interface TransportOptions {
  /** Most connections open at once; null for no limit. */
  connections: number | null;
  keepAliveMs: number;
  lookup: LookupFunction | undefined;
}

/** The connection pool of one run, for `transport` (see RunOptions.transport). */
export function createTransport(
  transport: Transport,
  origin: URL,
  options: TransportOptions,
): StreamTransport {
  const { connections, keepAliveMs, lookup } = options;
  if (transport === 'http1') return new Http1Pool(origin, { connections, keepAliveMs, lookup });
  return new Pool(origin.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: keepAliveMs,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: lookup === undefined ? undefined : { lookup },
  });
}
