import type { JobsOptions } from 'bullmq';

/**
 * How long a finished job stays in Redis to be looked at: a day once it completed, a week once it
 * failed for good, and never more than a count per queue. The database row is the record, not the
 * job, so Redis stays small.
 */
const KEEP_COMPLETED_S = 24 * 3600;
const KEEP_FAILED_S = 7 * 24 * 3600;

function keepFinished(completed: number, failed: number) {
  return {
    removeOnComplete: { age: KEEP_COMPLETED_S, count: completed },
    removeOnFail: { age: KEEP_FAILED_S, count: failed },
  } as const;
}

/**
 * A run job is retried only for infrastructure failures (database unreachable after the
 * processor's own write retries, lost lock); endpoint faults are stored in the run instead.
 */
export const RUN_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 5_000 },
  ...keepFinished(1_000, 5_000),
} as const satisfies JobsOptions;

/**
 * How many stalls (its worker died or stopped renewing the lock) a job survives, on every queue that
 * sets it (runs, webhooks). Lock duration and stall checks are per process, from the environment
 * (WORKER_LOCK_DURATION_MS, ...).
 */
export const WORKER_DEFAULTS = {
  maxStalledCount: 2,
} as const;

/**
 * A `webhooks` job is one delivery attempt. The receiver's faults are not job failures (they are
 * recorded as attempts and retried on the webhook schedule by a new job); BullMQ retries only what
 * broke before the attempt was recorded (database or Redis down). Job ids are
 * `<deliveryId>@<attempt>`, so kept jobs also de-duplicate a sweeper re-adding one.
 */
export const WEBHOOK_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  ...keepFinished(10_000, 5_000),
} as const satisfies JobsOptions;

/** The id of the job making attempt `attempt` of a delivery (BullMQ forbids `:` in ids). */
export function webhookJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}@${attempt}`;
}

/**
 * An analysis job reads and writes only the database: it is retried for infrastructure failures.
 * A deployment's verification waits for its runs by delaying itself, which spends no attempt.
 */
export const ANALYSIS_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  ...keepFinished(1_000, 5_000),
} as const satisfies JobsOptions;

/**
 * A change-point recomputation reads and writes the database only: retried a few times for an
 * outage. Removed when done, so the pair's job id is free for the next run's job (the id
 * de-duplicates only while a job waits); `CHANGE_POINT_DEBOUNCE_MS` lets a burst of finished runs
 * share one recomputation.
 */
export const CHANGE_POINT_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 10_000 },
  removeOnComplete: true,
  removeOnFail: { age: KEEP_FAILED_S, count: 1_000 },
} as const satisfies JobsOptions;

export const CHANGE_POINT_DEBOUNCE_MS = 2_000;

/** The job id of a pair's recomputation (BullMQ ids may not hold `:`). */
export function changePointsJobId(endpointId: string, profileId: string): string {
  return `change-points.${endpointId}.${profileId}`;
}

/**
 * An `advance-sweep` job reads the sweep and its point runs and either inserts the next point's run
 * or stores the outcome: idempotent, so it is retried for outages and removed when done (a later
 * re-add by the sweep sweeper runs again and finds nothing to do, or the step that was lost).
 */
export const SWEEP_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: { age: KEEP_FAILED_S, count: 1_000 },
} as const satisfies JobsOptions;

/**
 * The id of the job that advances a sweep once `measured` of its points have ended: the point run's
 * end, a retry and the sweeper all name the same job, so they collapse into one.
 */
export function advanceSweepJobId(sweepId: string, measured: number): string {
  return `advance-sweep.${sweepId}.${measured}`;
}
