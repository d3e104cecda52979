import { JOB_NAMES, QUEUE_NAMES, type JobOf } from '@teapot/contracts';
import { ANALYSIS_JOB_OPTIONS } from './options';
import { QueueProducer, type QueueProducerOptions } from './queue-producer';

type AnalysisJobData = JobOf<'verify-deployment'>;

export type AnalysisQueueProducerOptions = QueueProducerOptions;

/** The job id of a deployment's verification: one per deployment, however often it is queued. */
export function verificationJobId(deploymentId: string): string {
  return `verify-deployment-${deploymentId}`;
}

/** Puts jobs on the `analysis` queue. Its processors run in a worker that does not measure. */
export class AnalysisQueueProducer extends QueueProducer<AnalysisJobData> {
  constructor(options: AnalysisQueueProducerOptions) {
    super(QUEUE_NAMES.analysis, options, ANALYSIS_JOB_OPTIONS);
  }

  /**
   * Queues the verification of a deployment to start after `delayMs` (it waits for the deployment's
   * runs by delaying itself). A verification already queued makes the call a no-op.
   */
  async enqueueVerification(deploymentId: string, delayMs = 0): Promise<string> {
    const jobId = verificationJobId(deploymentId);
    const job = await this.queue.add(
      JOB_NAMES['verify-deployment'],
      { deploymentId },
      { jobId, ...(delayMs > 0 ? { delay: delayMs } : {}) },
    );
    return job.id ?? jobId;
  }
}
