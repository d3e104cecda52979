import { RUN_JOB_OPTIONS } from './options';
import { JOB_NAMES, QUEUE_NAMES, type RunJobData } from '@teapot/contracts';
import { QueueProducer, type QueueProducerOptions } from './queue-producer';

export type RunQueueProducerOptions = QueueProducerOptions;

export interface EnqueueRunOptions {
  /** Defaults to the run id. A job id already in the queue makes the call a no-op. */
  jobId?: string;
  /** Milliseconds before the job may start (BullMQ `delay`). */
  delay?: number;
  /**
   * Wall-clock ms at which the job becomes runnable; wins over `delay`. BullMQ adds a delay to each
   * job's own creation timestamp, so a delay computed before a bulk add lands late by the add time.
   */
  runAtMs?: number;
}

export interface RunEnqueueRequest extends EnqueueRunOptions {
  runId: string;
}

/** Puts runs on the `runs` queue. Processors live only in the worker. */
export class RunQueueProducer extends QueueProducer<RunJobData> {
  constructor(options: RunQueueProducerOptions) {
    super(QUEUE_NAMES.runs, options, RUN_JOB_OPTIONS);
  }

  /** Returns the job id (the existing job's when one with that id was already queued). */
  async enqueueRun(runId: string, options: EnqueueRunOptions = {}): Promise<string> {
    const job = await this.queue.add(JOB_NAMES.run, { runId }, toJobOptions(runId, options, Date.now()));
    return job.id ?? runId;
  }

  /** One round trip for many runs: the scheduler enqueues a whole tick at once. */
  async enqueueRuns(requests: RunEnqueueRequest[]): Promise<string[]> {
    if (requests.length === 0) return [];
    const nowMs = Date.now();
    const jobs = await this.queue.addBulk(
      requests.map(({ runId, ...options }) => ({
        name: JOB_NAMES.run,
        data: { runId },
        opts: toJobOptions(runId, options, nowMs),
      })),
    );
    return jobs.map((job, i) => job.id ?? requests[i].runId);
  }
}

function toJobOptions(
  runId: string,
  options: EnqueueRunOptions,
  nowMs: number,
): { jobId: string; delay?: number; timestamp?: number } {
  const jobId = options.jobId ?? runId;
  // One timestamp for the job and its delay, so it becomes runnable exactly at runAtMs.
  if (options.runAtMs !== undefined)
    return { jobId, timestamp: nowMs, delay: Math.max(0, options.runAtMs - nowMs) };
  return options.delay && options.delay > 0 ? { jobId, delay: options.delay } : { jobId };
}
