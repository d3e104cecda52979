import { createRedis } from '@teapot/jobs';
import { Client } from 'pg';
import type { StackEnv } from './dev-env';

const CHECK_TIMEOUT_MS = 3_000;

/** Postgres error codes that still prove the server answered. */
const DATABASE_MISSING = '3D000';
const AUTH_FAILED = new Set(['28P01', '28000']);

export interface ServiceProblem {
  service: 'Postgres' | 'Redis';
  /** The URL with any password masked. */
  url: string;
  problem: string;
  /** True when nothing answered at all (as opposed to answering with a refusal). */
  unreachable: boolean;
}

/** Asks both services at once; an empty list means both answered. A missing database is fine: it is created next. */
export async function checkServices(env: StackEnv): Promise<ServiceProblem[]> {
  const problems = await Promise.all([checkPostgres(env.DATABASE_URL), checkRedis(env.REDIS_URL)]);
  return problems.filter((problem): problem is ServiceProblem => problem !== null);
}

async function checkPostgres(url: string): Promise<ServiceProblem | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  // A connection that dies after the check must not crash the launcher.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const code = errorCode(error);
    if (code === DATABASE_MISSING) return null;
    const problem = AUTH_FAILED.has(code ?? '')
      ? `refused the login: ${message(error)}`
      : `is not reachable: ${describeConnectError(error)}`;
    return {
      service: 'Postgres',
      url: maskPassword(url),
      problem,
      unreachable: !AUTH_FAILED.has(code ?? ''),
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkRedis(url: string): Promise<ServiceProblem | null> {
  const redis = createRedis(url, {
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    // ioredis keeps a 2 s timer after a failed connect unless told otherwise; the launcher should not wait on it.
    disconnectTimeout: 50,
  });
  // With retries off, connect() only says "Connection is closed"; the cause came as an 'error' event.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (thrown) {
    const error = cause ?? thrown;
    const refused = /NOAUTH|WRONGPASS|invalid password/i.test(message(error));
    return {
      service: 'Redis',
      url: maskPassword(url),
      problem: refused
        ? `refused the login: ${message(error)}`
        : `is not reachable: ${describeConnectError(error)}`,
      unreachable: !refused,
    };
  } finally {
    redis.disconnect();
  }
}

/** What to print when a service is missing: the problems, then the two ways out. */
export function explainServiceProblems(problems: ServiceProblem[]): string {
  const lines = ['teapot cannot start:'];
  for (const { service, url, problem } of problems) lines.push(`  ${service} at ${url} ${problem}`);
  lines.push('');
  if (problems.some((problem) => problem.unreachable)) {
    lines.push(
      'Start Postgres and Redis with Docker, from the repository root:',
      '    docker compose up -d',
      'then run this again. Or point teapot at servers that already run:',
    );
  } else {
    lines.push('Point teapot at servers and credentials that work:');
  }
  lines.push(
    '    DATABASE_URL=postgresql://USER:PASSWORD@HOST:5432/teapot REDIS_URL=redis://HOST:6379 npm start',
    '(the database is created and migrated if it does not exist).',
  );
  return lines.join('\n');
}

export function maskPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function describeConnectError(error: unknown): string {
  const code = errorCode(error);
  const text = message(error);
  // AggregateError (IPv4 and IPv6 both refused) has an empty message but a code.
  if (!text) return code ?? 'no answer';
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
