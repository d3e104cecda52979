import { Client } from 'pg';
import { isUniqueViolation } from './errors';

/** The database a connection string names, and the same server's maintenance database. */
export function splitDatabaseUrl(databaseUrl: string): { database: string; adminUrl: string } {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new Error(`DATABASE_URL names no database: ${redact(databaseUrl)}`);
  url.pathname = '/postgres';
  return { database, adminUrl: url.toString() };
}

/** The URL without its password, for messages. */
export function redact(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable DATABASE_URL>';
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ECONNRESET',
]);

/** Turns "connection refused" into a message that says what to do. */
export function explainConnectError(err: unknown, databaseUrl: string): Error {
  const code = (err as { code?: string } | null)?.code;
  if (code && UNREACHABLE.has(code)) {
    return new Error(
      `Postgres at ${redact(databaseUrl)} is unreachable (${code}): start it, e.g. docker compose up -d postgres`,
      { cause: err },
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}

export async function connect(databaseUrl: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw explainConnectError(err, databaseUrl);
  }
  return client;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the database the URL names unless it exists; safe when two processes race. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const { database, adminUrl } = splitDatabaseUrl(databaseUrl);
  const admin = await connect(adminUrl);
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoteIdent(database)}`);
    return true;
  } catch (err) {
    // 42P04 duplicate_database, or a unique violation in pg_database: another process created it
    // between our check and create.
    if ((err as { code?: string }).code === '42P04' || isUniqueViolation(err)) return false;
    throw err;
  } finally {
    await admin.end();
  }
}

/** Terminates every session on the database and drops it. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { database, adminUrl } = splitDatabaseUrl(databaseUrl);
  const admin = await connect(adminUrl);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
