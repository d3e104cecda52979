import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { advanceSweepJobId } from '@teapot/jobs';
import { CLOCK, WORKER_ENV, type Clock } from '../env/worker-env';
import { RedisService } from '../redis/redis.service';
import { SweepAdvancer } from './sweep-advancer';

const BATCH = 200;
const ALIVE = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * Queues the next step of every unfinished sweep idle for longer than SWEEP_SWEEPER_INTERVAL_MS with
 * its last point ended (or none queued yet): a worker killed between a point's end and the advance,
 * Redis refusing the enqueue, a point ended by the reaper or a launcher. A live job is left alone; one
 * that failed for good is replaced.
 */
@Injectable()
export class SweepSweeper {
  private readonly logger = new Logger(SweepSweeper.name);

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly advancer: SweepAdvancer,
    private readonly redis: RedisService,
  ) {}

  /** Returns how many sweeps it queued a step for. */
  async sweep(nowMs: number = this.clock.now()): Promise<number> {
    const idle = await this.advancer.store.idle(new Date(nowMs - this.env.SWEEP_SWEEPER_INTERVAL_MS), BATCH);
    let queued = 0;
    for (const { id, measured } of idle) {
      const job = await this.redis.sweeps.queue.getJob(advanceSweepJobId(id, measured));
      if (job && ALIVE.has(await job.getState())) continue;
      if (job) await job.remove();
      await this.redis.sweeps.enqueueAdvance(id, measured);
      queued++;
    }
    if (queued > 0)
      this.logger.warn(`sweep sweeper: ${queued} idle sweep(s) without a next step queued again`);
    return queued;
  }
}
