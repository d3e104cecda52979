import { JOB_NAMES, QUEUE_NAMES, type AdvanceSweepJobData } from '@teapot/contracts';
import { advanceSweepJobId, SWEEP_JOB_OPTIONS } from './options';
import { QueueProducer, type QueueProducerOptions } from './queue-producer';

export interface EnqueueAdvanceOptions {
  /** Wall-clock ms at which the job becomes runnable (a scheduled sweep's due time); default now. */
  runAtMs?: number;
}

/** Puts `advance-sweep` jobs on the `sweeps` queue: after a sweep is created, and after each point's run ends. */
export class SweepQueueProducer extends QueueProducer<AdvanceSweepJobData> {
  constructor(options: QueueProducerOptions) {
    super(QUEUE_NAMES.sweeps, options, SWEEP_JOB_OPTIONS);
  }

  /**
   * Queues the step that follows `measured` ended points (0 for a new sweep). A job with the same
   * id still waiting or running makes the call a no-op. Returns the job id.
   */
  async enqueueAdvance(
    sweepId: string,
    measured: number,
    options: EnqueueAdvanceOptions = {},
  ): Promise<string> {
    const jobId = advanceSweepJobId(sweepId, measured);
    const nowMs = Date.now();
    const delay = options.runAtMs === undefined ? 0 : Math.max(0, options.runAtMs - nowMs);
    await this.queue.add(
      JOB_NAMES['advance-sweep'],
      { sweepId },
      delay > 0 ? { jobId, timestamp: nowMs, delay } : { jobId },
    );
    return jobId;
  }
}
