import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import {
  dropRawTimings,
  dropWebhookHistory,
  type DropRawTimingsResult,
  type DropWebhookHistoryResult,
} from '@teapot/db';
import { CLOCK, WORKER_ENV, type Clock } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';
import { cronTimeAtOrBefore } from '../schedule/schedule';

const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

export interface RetentionResult {
  cutoff: Date;
  dropped: DropRawTimingsResult;
  webhooks: { cutoff: Date; dropped: DropWebhookHistoryResult };
}

/**
 * On the RETENTION_CRON schedule (UTC): drops raw per-token timings older than RETENTION_RAW_DAYS
 * (summaries and histograms stay) and the webhook events older than RETENTION_WEBHOOK_DAYS with
 * their deliveries and attempts (none with a delivery still pending), in batches (see @teapot/db
 * dropRawTimings, dropWebhookHistory). One worker per slot does it (a Redis claim per slot), and a
 * slot missed while every worker was down runs once.
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
  ) {
    // A bad RETENTION_CRON stops the worker at boot rather than at the first check.
    cronTimeAtOrBefore(env.RETENTION_CRON, clock.now());
  }

  /** Runs the latest retention slot if no worker has yet; returns what was dropped, or null. */
  async runDue(nowMs: number = this.clock.now()): Promise<RetentionResult | null> {
    const slotMs = cronTimeAtOrBefore(this.env.RETENTION_CRON, nowMs);
    const claim = this.redis.key('retention', String(slotMs));
    if ((await this.redis.connection.set(claim, this.env.WORKER_ID, 'PX', CLAIM_TTL_MS, 'NX')) !== 'OK')
      return null;
    try {
      const raw = await this.dropOlderThan(new Date(nowMs - this.env.RETENTION_RAW_DAYS * 86_400_000));
      const webhooks = await this.dropWebhooksOlderThan(
        new Date(nowMs - this.env.RETENTION_WEBHOOK_DAYS * 86_400_000),
      );
      return { ...raw, webhooks };
    } catch (error) {
      // Give the slot back so the next check (here or on another worker) tries again.
      await this.redis.connection.del(claim).catch(() => undefined);
      throw error;
    }
  }

  async dropOlderThan(cutoff: Date): Promise<{ cutoff: Date; dropped: DropRawTimingsResult }> {
    const dropped = await dropRawTimings(this.prisma, { olderThan: cutoff });
    this.logger.log(
      `retention: raw timings of runs before ${cutoff.toISOString()} dropped: ${JSON.stringify(dropped)}`,
    );
    return { cutoff, dropped };
  }

  async dropWebhooksOlderThan(cutoff: Date): Promise<{ cutoff: Date; dropped: DropWebhookHistoryResult }> {
    const dropped = await dropWebhookHistory(this.prisma, { olderThan: cutoff });
    this.logger.log(
      `retention: webhook events before ${cutoff.toISOString()} dropped with their deliveries and attempts: ${JSON.stringify(dropped)}`,
    );
    return { cutoff, dropped };
  }
}
