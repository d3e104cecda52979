import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { WorkerEnv } from '@teapot/config';
import {
  ChangePointQueueProducer,
  RunQueueProducer,
  SweepQueueProducer,
  closeQueuesAndConnection,
  createRedis,
} from '@teapot/jobs';
import { WORKER_ENV } from '../env/worker-env';

/** One Redis connection for the queue producers, locks and health; BullMQ workers open their own. */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  readonly connection: Redis;
  readonly prefix: string;
  readonly runs: RunQueueProducer;
  readonly changePoints: ChangePointQueueProducer;
  readonly sweeps: SweepQueueProducer;
  private readonly logger = new Logger(RedisService.name);

  constructor(@Inject(WORKER_ENV) private readonly env: WorkerEnv) {
    this.connection = this.connect('main');
    this.prefix = env.TEAPOT_REDIS_PREFIX;
    this.runs = new RunQueueProducer({ redis: this.connection, prefix: this.prefix });
    this.changePoints = new ChangePointQueueProducer({ redis: this.connection, prefix: this.prefix });
    this.sweeps = new SweepQueueProducer({ redis: this.connection, prefix: this.prefix });
  }

  /** A fresh connection for a BullMQ Worker (it blocks on Redis, so it cannot share). */
  dedicatedConnection(name: string): Redis {
    return this.connect(name);
  }

  /** Key outside BullMQ's namespace, under the same prefix. */
  key(...parts: string[]): string {
    return [this.prefix, 'teapot', ...parts].join(':');
  }

  /** After every module's beforeApplicationShutdown: queue workers may still write while they drain. */
  async onApplicationShutdown(): Promise<void> {
    // The producers borrow this connection: their queues close first, once BullMQ's start-up check settled.
    await closeQueuesAndConnection(this.connection, [
      this.runs.queue,
      this.changePoints.queue,
      this.sweeps.queue,
    ]);
  }

  private connect(name: string): Redis {
    const connection = createRedis(this.env.REDIS_URL, { connectionName: `teapot-worker-${name}` });
    // ioredis reconnects on its own: say so once per outage instead of crashing on an 'error' event.
    let down = false;
    connection.on('error', (error: Error) => {
      if (down) return;
      down = true;
      this.logger.warn(`Redis (${name}) unreachable, reconnecting: ${error.message}`);
    });
    connection.on('ready', () => {
      if (down) this.logger.log(`Redis (${name}) reconnected`);
      down = false;
    });
    return connection;
  }
}
