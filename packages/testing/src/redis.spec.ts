import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { deleteKeysUnderPrefix, deleteRedisPrefix, REDIS_URL } from './redis';

describe('deleteKeysUnderPrefix against real Redis', () => {
  it('removes every key under the prefix and nothing else', async () => {
    const redis = new IORedis(REDIS_URL);
    const prefix = `teapot-test-${randomUUID()}`;
    try {
      const keys = Array.from({ length: 2500 }, (_, i) => `${prefix}:k${i}`);
      for (let i = 0; i < keys.length; i += 500)
        await redis.mset(...keys.slice(i, i + 500).flatMap((k) => [k, '1']));
      await redis.set(`${prefix}-neighbour:k`, '1');
      expect(await deleteKeysUnderPrefix(redis, prefix)).toBe(2500);
      expect(await redis.exists(keys[0], keys[2499])).toBe(0);
      expect(await redis.get(`${prefix}-neighbour:k`)).toBe('1');
    } finally {
      await redis.del(`${prefix}-neighbour:k`);
      await redis.quit();
    }
  });

  it('deleteRedisPrefix does the same over a connection of its own', async () => {
    const redis = new IORedis(REDIS_URL);
    const prefix = `teapot-test-${randomUUID()}`;
    try {
      await redis.mset(`${prefix}:a`, '1', `${prefix}:b`, '1');
      expect(await deleteRedisPrefix(REDIS_URL, prefix)).toBe(2);
      expect(await redis.exists(`${prefix}:a`, `${prefix}:b`)).toBe(0);
    } finally {
      await redis.quit();
    }
  });

  it('deleteRedisPrefix gives up at once when Redis cannot be reached', async () => {
    const started = Date.now();
    expect(await deleteRedisPrefix('redis://127.0.0.1:1', 'teapot-test')).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
