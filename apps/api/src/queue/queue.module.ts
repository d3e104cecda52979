import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import {
  AnalysisQueueProducer,
  closeQueuesAndConnection,
  createRedis,
  RunQueueProducer,
  SweepQueueProducer,
} from '@teapot/jobs';
import { API_ENV } from '../env/env.module';

export const QUEUE_REDIS = Symbol('QUEUE_REDIS');
export type QueueRedis = ReturnType<typeof createRedis>;

/** One Redis connection for the API: the producers and the health ping share it. */
@Global()
@Module({
  providers: [
    {
      provide: QUEUE_REDIS,
      inject: [API_ENV],
      // Commands wait for a reconnect once, then fail: a request gets a 503 instead of hanging.
      useFactory: (env: ApiEnv): QueueRedis => createRedis(env.REDIS_URL, { maxRetriesPerRequest: 1 }),
    },
    {
      provide: RunQueueProducer,
      inject: [QUEUE_REDIS, API_ENV],
      useFactory: (redis: QueueRedis, env: ApiEnv) =>
        new RunQueueProducer({ redis, prefix: env.TEAPOT_REDIS_PREFIX }),
    },
    {
      provide: AnalysisQueueProducer,
      inject: [QUEUE_REDIS, API_ENV],
      useFactory: (redis: QueueRedis, env: ApiEnv) =>
        new AnalysisQueueProducer({ redis, prefix: env.TEAPOT_REDIS_PREFIX }),
    },
    {
      provide: SweepQueueProducer,
      inject: [QUEUE_REDIS, API_ENV],
      useFactory: (redis: QueueRedis, env: ApiEnv) =>
        new SweepQueueProducer({ redis, prefix: env.TEAPOT_REDIS_PREFIX }),
    },
  ],
  exports: [QUEUE_REDIS, RunQueueProducer, AnalysisQueueProducer, SweepQueueProducer],
})
export class QueueModule implements OnApplicationShutdown {
  constructor(
    private readonly producer: RunQueueProducer,
    private readonly analysis: AnalysisQueueProducer,
    private readonly sweeps: SweepQueueProducer,
    @Inject(QUEUE_REDIS) private readonly redis: QueueRedis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // The producers borrow this connection: their queues close first, once BullMQ's start-up check settled.
    await closeQueuesAndConnection(this.redis, [this.producer.queue, this.analysis.queue, this.sweeps.queue]);
  }
}
