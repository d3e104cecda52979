import type { LookupFunction } from 'node:net';
import type { Dispatcher, Pool } from 'undici';
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
  return new (undiciPool())(origin.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: keepAliveMs,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: lookup === undefined ? undefined : { lookup },
  });
}

/**
 * undici, loaded by the first run that reads through it: requiring it costs 100-350 ms of CPU, which
 * every measuring thread would otherwise pay at its start while other runs' threads are timestamping.
 */
function undiciPool(): typeof Pool {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('undici') as typeof import('undici')).Pool;
}
