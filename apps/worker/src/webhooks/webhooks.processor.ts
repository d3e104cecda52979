import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { WorkerEnv } from '@teapot/config';
import { JOB_NAMES, QUEUE_NAMES, type WebhookJobData } from '@teapot/contracts';
import { WORKER_DEFAULTS, WebhookQueueProducer } from '@teapot/jobs';
import { webhookDispatcher, type HostResolver } from '@teapot/webhooks';
import { CLOCK, HOST_RESOLVER, WORKER_ENV, type Clock } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { OnJob, QueueProcessor, type QueueProcessorHooks } from '../queues/queue-processor';
import { RedisService } from '../redis/redis.service';
import { WebhookDeliverer, type AttemptReport } from './webhook-deliverer';

/**
 * Processes `webhooks` jobs: each is one attempt of one delivery (WebhookDeliverer holds the rules).
 * The receiver's faults are recorded attempts, not failed jobs; a job fails only when the database or
 * Redis did, and BullMQ retries it (an attempt already recorded is skipped, so nothing is sent twice).
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES.webhooks)
export class WebhookProcessor implements QueueProcessorHooks, OnApplicationShutdown {
  readonly producer: WebhookQueueProducer;
  private readonly dispatcher;
  private readonly deliverer: WebhookDeliverer;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) clock: Clock,
    prisma: PrismaService,
    redis: RedisService,
    @Inject(HOST_RESOLVER) resolveHost: HostResolver,
  ) {
    this.producer = new WebhookQueueProducer({ redis: redis.connection, prefix: redis.prefix });
    this.dispatcher = webhookDispatcher(env.TEAPOT_WEBHOOK_URL_ALLOW, resolveHost);
    this.deliverer = new WebhookDeliverer({
      db: { prisma, pool: prisma.pool },
      secretKey: env.TEAPOT_SECRET_KEY,
      policy: env.TEAPOT_WEBHOOK_URL_ALLOW,
      schedule: env.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      publicUrl: env.TEAPOT_PUBLIC_URL,
      dispatcher: this.dispatcher,
      enqueue: (next) => this.producer.enqueue([next]),
      now: () => clock.now(),
    });
  }

  workerOptions() {
    return {
      concurrency: this.env.WEBHOOK_CONCURRENCY,
      // BullMQ renews the lock while an attempt runs, so it needs no room for the 15 s timeout.
      lockDuration: this.env.WORKER_LOCK_DURATION_MS,
      stalledInterval: this.env.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: WORKER_DEFAULTS.maxStalledCount,
    };
  }

  onJobFailed(job: Job<WebhookJobData>, error: Error): Promise<void> {
    return this.deliverer.handBack(job, error);
  }

  @OnJob(JOB_NAMES.deliver)
  handle(job: Job<WebhookJobData>): Promise<AttemptReport> {
    return this.deliverer.attempt(job.data.deliveryId, job.data.attempt);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
    await this.dispatcher.close();
  }
}
