import IORedis, { type Redis, type RedisOptions } from 'ioredis';

/**
 * An ioredis connection BullMQ can use for workers as well as queues: blocking commands must
 * never give up (`maxRetriesPerRequest: null`), and the client reconnects on its own.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, ...options });
}
