/**
 * A closed-loop HTTP load: `connections` clients, each sending its next request when the last one
 * answered, for a fixed time. Latency is from sending to the last byte of the body.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface HttpCall {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  /** Latencies (ms) of every answer, whatever its status. */
  latenciesMs: number[];
  /** Answers by status code. */
  statuses: Map<number, number>;
  /** 429 and 503 answers that carried a Retry-After header. */
  withRetryAfter: number;
  /** Requests that got no answer (timeout, reset), by message. */
  failures: Map<string, number>;
  seconds: number;
}

const ANSWER_TIMEOUT_MS = 30_000;

/** One request on `pool`: its status, latency and whether it said when to retry. */
export async function send(
  pool: Pool,
  call: HttpCall,
): Promise<{ status: number; ms: number; retryAfter: boolean; body: string }> {
  const start = performance.now();
  const response = await pool.request({
    method: call.method,
    path: call.path,
    headers: call.headers,
    body: call.body,
    headersTimeout: ANSWER_TIMEOUT_MS,
    bodyTimeout: ANSWER_TIMEOUT_MS,
  });
  const body = await response.body.text();
  return {
    status: response.statusCode,
    ms: performance.now() - start,
    retryAfter: response.headers['retry-after'] !== undefined,
    body,
  };
}

/** Drives `connections` concurrent clients against `origin` for `seconds`, then waits for the last answers. */
export async function closedLoop(
  origin: string,
  call: HttpCall,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const result: LoadResult = {
    latenciesMs: [],
    statuses: new Map(),
    withRetryAfter: 0,
    failures: new Map(),
    seconds: 0,
  };
  const start = performance.now();
  const until = start + seconds * 1000;
  const client = async () => {
    while (performance.now() < until) {
      try {
        const answer = await send(pool, call);
        result.latenciesMs.push(answer.ms);
        result.statuses.set(answer.status, (result.statuses.get(answer.status) ?? 0) + 1);
        if ((answer.status === 429 || answer.status === 503) && answer.retryAfter) result.withRetryAfter += 1;
      } catch (error) {
        const message = (error as Error).message;
        result.failures.set(message, (result.failures.get(message) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  result.seconds = (performance.now() - start) / 1000;
  await pool.close();
  return result;
}

/** The q-quantile (nearest rank) of unsorted values, or NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
