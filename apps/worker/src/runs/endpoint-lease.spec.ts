import { randomUUID } from 'node:crypto';
import { createRedis } from '@teapot/jobs';
import { EndpointLease } from './endpoint-lease';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const key = () => `teapot-test-${randomUUID()}:endpoint-lease`;

afterAll(() => redis.quit());

describe('EndpointLease against real Redis', () => {
  it('lets one holder in at a time and releases only its own lease', async () => {
    const k = key();
    const first = await EndpointLease.acquire(redis, k, 'w1', 5_000);
    expect(first).not.toBeNull();
    expect(await EndpointLease.acquire(redis, k, 'w2', 5_000)).toBeNull();
    expect(await EndpointLease.holder(redis, k)).toMatch(/^w1\//);
    await first?.release();
    const second = await EndpointLease.acquire(redis, k, 'w2', 5_000);
    expect(second).not.toBeNull();
    // A stale holder releasing late must not free the new holder's lease.
    await first?.release();
    expect(await EndpointLease.holder(redis, k)).toMatch(/^w2\//);
    await second?.release();
    expect(await redis.exists(k)).toBe(0);
  });

  it('renews while held, so the lease outlives its ttl', async () => {
    const k = key();
    const lease = await EndpointLease.acquire(redis, k, 'w1', 300);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await EndpointLease.holder(redis, k)).toBe(lease?.token);
    await lease?.release();
  });

  it('reports a lease taken over by another holder', async () => {
    const k = key();
    const lease = await EndpointLease.acquire(redis, k, 'w1', 300);
    const lost = new Promise<string>((resolve) => lease?.onLost(resolve));
    await redis.set(k, 'someone-else', 'PX', 5_000);
    await expect(lost).resolves.toMatch(/taken by another worker/);
    await lease?.release();
    expect(await redis.get(k)).toBe('someone-else');
    await redis.del(k);
  });
});
