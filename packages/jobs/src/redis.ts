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
