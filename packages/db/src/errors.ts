/** What a failed database call says about trying again. */
export type DbErrorKind =
  /** The database is away or briefly busy (restart, network, serialization, deadlock): retry with backoff. */
  | 'transient'
  /** The pool has no free connection in time: retrying adds load to an overloaded pool, so don't. */
  | 'pool_exhausted'
  /** A unique constraint refused the write: someone else wrote the same key first. */
  | 'unique_violation'
  /** Anything else (bad data, a bug): the same call would fail again. */
  | 'permanent';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// SQLSTATEs that say "try again": admin/crash shutdown, cannot connect now, too many connections,
// serialization failure, deadlock. Class 08 (connection exception) is matched by prefix.
const RETRYABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
// Prisma: database unreachable, timed out, connection closed.
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017']);
const UNREACHABLE_MESSAGES =
  /connection terminated|connection refused|can't reach database|terminating connection|server closed the connection|connection ended/i;
// pg-pool's wait for a free client ran out (connectionTimeoutMillis; a slow server's connect says
// "Connection terminated due to connection timeout" instead), and Prisma's own pool's P2024 text.
const POOL_EXHAUSTED_MESSAGES =
  /timeout exceeded when trying to connect|timed out fetching a new connection from the connection pool/i;

/** Classifies an error from Prisma or pg, looking through its `cause` chain (the driver adapter wraps pg's). */
export function classifyDbError(error: unknown): DbErrorKind {
  let transient = false;
  for (let cause: unknown = error, depth = 0; cause && depth < 6; depth++) {
    const { code, originalCode, message } = cause as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
    };
    for (const value of [code, originalCode]) {
      if (typeof value !== 'string') continue;
      if (value === 'P2024') return 'pool_exhausted';
      if (value === 'P2002' || value === '23505') return 'unique_violation';
      if (
        NETWORK_CODES.has(value) ||
        RETRYABLE_SQLSTATES.has(value) ||
        PRISMA_UNREACHABLE.has(value) ||
        /^08[0-9A-Z]{3}$/.test(value)
      )
        transient = true;
    }
    if (typeof message === 'string') {
      if (POOL_EXHAUSTED_MESSAGES.test(message)) return 'pool_exhausted';
      if (UNREACHABLE_MESSAGES.test(message)) transient = true;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return transient ? 'transient' : 'permanent';
}

/** True only when waiting and trying the same call again can succeed. */
export function isTransientDbError(error: unknown): boolean {
  return classifyDbError(error) === 'transient';
}

export function isUniqueViolation(error: unknown): boolean {
  return classifyDbError(error) === 'unique_violation';
}
