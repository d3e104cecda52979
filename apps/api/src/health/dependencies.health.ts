import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { queueHealth, RunQueueProducer } from '@teapot/jobs';
import { withTimeout } from '../common/timeout';
import { PrismaService } from '../prisma/prisma.service';
import { QUEUE_REDIS, type QueueRedis } from '../queue/queue.module';

const PING_TIMEOUT_MS = 2_000;

@Injectable()
export class DependenciesHealth {
  constructor(
    private readonly indicator: HealthIndicatorService,
    private readonly prisma: PrismaService,
    @Inject(QUEUE_REDIS) private readonly redisClient: QueueRedis,
    private readonly producer: RunQueueProducer,
  ) {}

  async database() {
    const session = this.indicator.check('database');
    try {
      await withTimeout(this.prisma.$queryRaw`SELECT 1`, PING_TIMEOUT_MS, 'Postgres');
      return session.up();
    } catch (error) {
      return session.down({ message: messageOf(error) });
    }
  }

  /** Redis, with the run queue's job counts as detail. */
  async redis() {
    const session = this.indicator.check('redis');
    try {
      await withTimeout(this.redisClient.ping(), PING_TIMEOUT_MS, 'Redis');
      const runs = await withTimeout(queueHealth(this.producer.queue), PING_TIMEOUT_MS, 'Redis');
      return session.up({ runQueue: runs });
    } catch (error) {
      return session.down({ message: messageOf(error) });
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
