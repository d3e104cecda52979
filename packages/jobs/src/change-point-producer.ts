import { JOB_NAMES, QUEUE_NAMES, type ChangePointsJobData } from '@teapot/contracts';
import { CHANGE_POINT_DEBOUNCE_MS, CHANGE_POINT_JOB_OPTIONS, changePointsJobId } from './options';
import { QueueProducer, type QueueProducerOptions } from './queue-producer';

/**
 * Puts change-point recomputations on the `change-points` queue: one job per (endpoint, profile), added
 * with a short delay, so the runs that finish while it waits add nothing (same job id).
 */
export class ChangePointQueueProducer extends QueueProducer<ChangePointsJobData> {
  constructor(options: QueueProducerOptions) {
    super(QUEUE_NAMES['change-points'], options, CHANGE_POINT_JOB_OPTIONS);
  }

  /** Returns the job id (the waiting job's when the pair already has one). */
  async enqueueChangePoints(pair: ChangePointsJobData, delayMs = CHANGE_POINT_DEBOUNCE_MS): Promise<string> {
    const jobId = changePointsJobId(pair.endpointId, pair.profileId);
    await this.queue.add(
      JOB_NAMES['change-points'],
      { endpointId: pair.endpointId, profileId: pair.profileId },
      { jobId, delay: delayMs },
    );
    return jobId;
  }
}
