import IORedis, { type Redis, type RedisOptions } from 'ioredis';

export const DEFAULT_REDIS_PREFIX = 'teapot';

/**
 * An ioredis connection BullMQ can use for workers as well as queues: blocking commands must
 * never give up (`maxRetriesPerRequest: null`), and the client reconnects on its own.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, ...options });
}

/** BullMQ key prefix: TEAPOT_REDIS_PREFIX, so test runs and deployments never see each other. */
export function redisPrefix(env: NodeJS.ProcessEnv = process.env): string {
  const prefix = env.TEAPOT_REDIS_PREFIX?.trim();
  return prefix ? prefix : DEFAULT_REDIS_PREFIX;
}

/**
 * Removes every key under `prefix:` (queues, endpoint locks, retention slots): how a test run or a
 * benchmark leaves a shared Redis as it found it. SCAN in pages, never KEYS, so Redis is not blocked.
 */
export async function deleteKeysUnderPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  const stream = redis.scanStream({ match: `${prefix}:*`, count: 1000 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  }
  return deleted;
}

/** deleteKeysUnderPrefix over a connection of its own, closed after: for cleanup in tests and benchmarks. */
export async function deleteRedisPrefix(
  url: string,
  prefix: string,
  options: RedisOptions = {},
): Promise<number> {
  const redis = createRedis(url, options);
  // a failure reaches the caller through the rejected command; the event would only be logged
  redis.on('error', () => undefined);
  try {
    return await deleteKeysUnderPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
