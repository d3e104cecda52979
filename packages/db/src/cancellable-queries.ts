import { connect } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import type { Queryable } from './run-store';

/** A statement not run, or stopped on the server, because its caller gave up (the signal aborted). */
export class QueryCancelledError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The query was cancelled: its caller went away.', options);
    this.name = 'QueryCancelledError';
  }
}

/** Postgres' CancelRequest code (protocol 1234.5678). */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Statements on `pool` for a caller that may go away: none starts once `signal` has aborted, and the
 * one running when it aborts is cancelled on the server, so a client that hung up stops costing the
 * database too. The cancel goes as Postgres' own cancel request on a fresh socket, which needs no
 * pooled connection (the pool may be exhausted) and no authentication. A connection whose statement
 * was being cancelled is discarded, not reused: a cancel that arrives late would hit its next user.
 */
export function cancellableQueries(pool: Pool, signal: AbortSignal): Queryable {
  return {
    async query(text, values) {
      if (signal.aborted) throw new QueryCancelledError();
      const client = await pool.connect();
      let cancelled = false;
      const cancel = () => {
        cancelled = true;
        sendCancelRequest(client);
      };
      signal.addEventListener('abort', cancel, { once: true });
      try {
        if (signal.aborted) throw new QueryCancelledError();
        return await client.query(text, values);
      } catch (error) {
        throw signal.aborted ? new QueryCancelledError({ cause: error }) : error;
      } finally {
        signal.removeEventListener('abort', cancel);
        client.release(cancelled);
      }
    },
  };
}

/** What pg keeps of the server's BackendKeyData (not in its type declarations). */
interface BackendKey {
  processID: number;
  secretKey: number;
  host: string;
  port: number;
}

function sendCancelRequest(client: PoolClient): void {
  const { processID, secretKey, host, port } = client as unknown as BackendKey;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey, 12);
  const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  // The server answers a cancel request by closing the socket; a failure only leaves the statement running.
  socket.on('error', () => socket.destroy());
  socket.on('connect', () => socket.end(message));
}
