import IORedis, { type Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

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

/**
 * deleteKeysUnderPrefix over a connection of its own, closed after. Gives up at once when Redis is
 * away: a test may point a process at a dead port on purpose, and nothing of it can be in such a Redis.
 */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<number> {
  const redis = new IORedis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  // a failure reaches the caller through the rejected command; the event would only be logged
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch {
    return 0;
  }
  try {
    return await deleteKeysUnderPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
