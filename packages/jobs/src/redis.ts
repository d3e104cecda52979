import type { Queue } from 'bullmq';
import IORedis, { type Redis, type RedisOptions } from 'ioredis';

/**
 * An ioredis connection BullMQ can use for workers as well as queues: blocking commands must
 * never give up (`maxRetriesPerRequest: null`), and the client reconnects on its own.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, ...options });
}

/** How long closing waits for a queue's first Redis round trip before closing the connection under it. */
const SETTLE_MS = 2_000;
/** After that close, how long the check has to fail while the queues still listen. */
const CLOSED_SETTLE_MS = 500;

/**
 * Closes queues that borrow `connection`, then the connection. Every BullMQ queue checks the Redis
 * version once its connection is up, and `Queue.close()` drops BullMQ's own error listener at once:
 * a check still in flight when the connection then closes rejects with nobody listening, an
 * unhandled "Connection is closed" (a process stopped right after it started, e.g. the API refusing
 * an unmigrated database). So the checks settle first: within SETTLE_MS while Redis answers; else
 * the connection is closed first, while the queues still listen, and its errors are expected. (A
 * connection waiting to reconnect has no socket to close: its check never settles, nor fails later.)
 */
export async function closeQueuesAndConnection(
  connection: Redis,
  queues: ReadonlyArray<Pick<Queue, 'on' | 'waitUntilReady' | 'close'>>,
): Promise<void> {
  for (const queue of queues) queue.on('error', () => undefined);
  const settled = Promise.allSettled(queues.map((queue) => queue.waitUntilReady()));
  if (!(await within(settled, SETTLE_MS))) {
    connection.disconnect();
    await within(settled, CLOSED_SETTLE_MS);
  }
  await Promise.all(queues.map((queue) => queue.close()));
  if (connection.status === 'ready') await connection.quit().catch(() => undefined);
  // Also stops the reconnect loop of a connection that never came up.
  connection.disconnect();
}

/** True when `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
