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
// Postgres SQLSTATEs that say "try again": shutdown, too many connections, serialization, deadlock.
const RETRYABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
// Prisma's codes for an unreachable, timed-out or closed database and an exhausted pool.
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const MESSAGES =
  /connection terminated|connection refused|can't reach database|terminating connection|server closed the connection|connection ended|timeout exceeded when trying to connect/i;

/** True when a database error says the database is away or busy, not that the write is wrong. */
export function isTransientDbError(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 6; depth++) {
    const { code, originalCode, message } = cause as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
    };
    for (const value of [code, originalCode]) {
      if (typeof value !== 'string') continue;
      if (NETWORK_CODES.has(value) || RETRYABLE_SQLSTATES.has(value) || PRISMA_UNREACHABLE.has(value))
        return true;
      if (value.startsWith('08')) return true;
    }
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
