import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName } from '@teapot/contracts';
import { createRedis } from './redis';

export interface QueueProducerOptions {
  /** A Redis URL (the producer opens and closes its own connection) or a connection it borrows. */
  redis: string | Redis;
  /** BullMQ key prefix: the validated TEAPOT_REDIS_PREFIX (its default lives in @teapot/config). */
  prefix: string;
}

/**
 * What every producer shares: its queue, with the queue's job options as defaults, on a connection
 * it either opened (and so closes) or borrowed (and leaves to its owner, which may still use it).
 */
export abstract class QueueProducer<Data> {
  readonly queue: Queue<Data>;
  private readonly ownedConnection: Redis | null;

  protected constructor(name: QueueName, options: QueueProducerOptions, defaultJobOptions: JobsOptions) {
    this.ownedConnection = typeof options.redis === 'string' ? createRedis(options.redis) : null;
    this.queue = new Queue<Data>(name, {
      connection: this.ownedConnection ?? (options.redis as Redis),
      prefix: options.prefix,
      defaultJobOptions,
    });
  }

  async close(): Promise<void> {
    await this.queue.close();
    if (this.ownedConnection) await this.ownedConnection.quit().catch(() => undefined);
  }
}
