import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AnalysisQueueProducer, verificationJobId } from '@teapot/jobs';
import { CLOCK, type Clock } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';

/** A deployment younger than this is left to the API, which queues its verification itself. */
const GRACE_MS = 60_000;
const BATCH = 200;
const ALIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * Queues the verification of every pending deployment whose job is gone: the API died (or Redis
 * refused) between its commit and the enqueue, or the job failed for good. A live job is left alone.
 */
@Injectable()
export class VerificationSweep implements OnApplicationShutdown {
  private readonly logger = new Logger(VerificationSweep.name);
  readonly producer: AnalysisQueueProducer;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly prisma: PrismaService,
    redis: RedisService,
  ) {
    this.producer = new AnalysisQueueProducer({ redis: redis.connection, prefix: redis.prefix });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
  }

  /** Returns how many verifications it queued. */
  async sweep(nowMs: number = this.clock.now()): Promise<number> {
    const pending = await this.prisma.deployment.findMany({
      where: { verdict: null, createdAt: { lt: new Date(nowMs - GRACE_MS) } },
      select: { id: true },
      orderBy: { createdAt: 'asc' },
      take: BATCH,
    });
    let queued = 0;
    for (const { id } of pending) {
      const job = await this.producer.queue.getJob(verificationJobId(id));
      if (job && ALIVE.has(await job.getState())) continue;
      if (job) await job.remove();
      await this.producer.enqueueVerification(id);
      queued++;
    }
    if (queued > 0)
      this.logger.warn(`verification sweep: ${queued} pending deployment(s) without a job queued again`);
    return queued;
  }
}
