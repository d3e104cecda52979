import { Injectable } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { JOB_NAMES, QUEUE_NAMES, type AdvanceSweepJobData } from '@teapot/contracts';
import { OnJob, QueueProcessor, type QueueProcessorHooks } from '../queues/queue-processor';
import { SweepAdvancer, type AdvanceOutcome } from './sweep-advancer';

/**
 * The `sweeps` queue: job `advance-sweep` takes a sweep's next step (SweepAdvancer). It only reads and
 * writes the database and queues jobs; the points are measured by the `runs` queue.
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES.sweeps)
export class SweepProcessor implements QueueProcessorHooks {
  constructor(private readonly advancer: SweepAdvancer) {}

  workerOptions() {
    return { concurrency: 4 };
  }

  @OnJob(JOB_NAMES['advance-sweep'])
  async advance(job: Job<AdvanceSweepJobData>): Promise<AdvanceOutcome> {
    const outcome = await this.advancer.advance(job.data.sweepId);
    if (outcome.step === 'missing')
      throw new UnrecoverableError(`sweep ${job.data.sweepId} no longer exists`);
    return outcome;
  }
}
