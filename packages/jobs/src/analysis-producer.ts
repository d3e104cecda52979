import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, QUEUE_NAMES, type JobOf } from '@teapot/contracts';
import { ANALYSIS_JOB_OPTIONS } from './options';
import { createRedis } from './redis';

type AnalysisJobData = JobOf<'verify-deployment'>;

export interface AnalysisQueueProducerOptions {
  /** A Redis URL (the producer opens and closes its own connection) or a connection it borrows. */
  redis: string | Redis;
  prefix: string;
}

/** The job id of a deployment's verification: one per deployment, however often it is queued. */
export function verificationJobId(deploymentId: string): string {
  return `verify-deployment-${deploymentId}`;
}

/** Puts jobs on the `analysis` queue. Its processors run in a worker that does not measure. */
export class AnalysisQueueProducer {
  readonly queue: Queue<AnalysisJobData>;
  private readonly ownedConnection: Redis | null;

  constructor(options: AnalysisQueueProducerOptions) {
    this.ownedConnection = typeof options.redis === 'string' ? createRedis(options.redis) : null;
    const connection = this.ownedConnection ?? (options.redis as Redis);
    this.queue = new Queue<AnalysisJobData>(QUEUE_NAMES.analysis, {
      connection,
      prefix: options.prefix,
      defaultJobOptions: ANALYSIS_JOB_OPTIONS,
    });
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

  async close(): Promise<void> {
    await this.queue.close();
    if (this.ownedConnection) await this.ownedConnection.quit().catch(() => undefined);
  }
}
