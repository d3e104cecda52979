import type { JobsOptions } from 'bullmq';

/**
 * A run job is retried only for infrastructure failures (database unreachable after the
 * processor's own write retries, lost lock); endpoint faults are stored in the run instead.
 * Finished jobs are trimmed so Redis stays small: the Run row is the record, not the job.
 */
export const RUN_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 24 * 3600, count: 1_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5_000 },
} as const satisfies JobsOptions;

/** How often a worker checks for jobs whose owner died, and how many stalls a job survives. */
export const RUN_WORKER_DEFAULTS = {
  lockDurationMs: 30_000,
  stalledIntervalMs: 15_000,
  maxStalledCount: 2,
} as const;
