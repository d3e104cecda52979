import type { RunErrorClass } from '@teapot/contracts';
import { classifyDbError, runStatusOf, type RunStatus } from '@teapot/db';
import { WORKER_DEFAULTS } from '@teapot/jobs';
import type { RunResult } from '@teapot/measure';

export interface RunVerdict {
  status: RunStatus;
  error: string | null;
}

/**
 * Final status of a measured run, by @teapot/db's rule (runStatusOf: aborted when stopped from
 * outside; failed when every measured request failed; partial when some did), with the reason.
 */
export function verdictOf(result: RunResult, abortReason: string | null): RunVerdict {
  const status = runStatusOf(result);
  const { succeeded, failed } = result.summary.requests;
  const errors = describeErrors(result.summary.errorsByClass);
  switch (status) {
    case 'aborted':
      return { status, error: abortReason ?? 'the run was aborted before it finished' };
    case 'failed':
      return { status, error: `no measured request succeeded${errors}` };
    case 'partial':
      return { status, error: `${failed} of ${succeeded + failed} measured requests failed${errors}` };
    default:
      return { status, error: null };
  }
}

function describeErrors(byClass: Partial<Record<string, number>>): string {
  const parts = Object.entries(byClass)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

/**
 * What a measured result's write that failed for good leads to: the job fails so BullMQ measures the
 * run again while the database is away or no pool connection came free in time (a database that
 * stopped answering fills the pool too); a write that can never succeed ends the run instead.
 */
export function afterStoreFailure(error: unknown): 'measure_again' | 'end_run' {
  const kind = classifyDbError(error);
  return kind === 'transient' || kind === 'pool_exhausted' ? 'measure_again' : 'end_run';
}

/** BullMQ's reason for a job whose lock expired (its worker died) more often than maxStalledCount allows. */
export const STALLED_LIMIT_REASON = 'job stalled more than allowable limit';

export interface JobFailure {
  errorClass: Extract<RunErrorClass, 'worker_lost' | 'internal'>;
  reason: string;
}

/**
 * Why a run job failed for good, in plain words. A job that stalled too often means the worker
 * process measuring the run died that many times (killed, out of memory, machine lost): that is
 * `worker_lost`, never the endpoint's fault. Anything else is teapot failing to run it (`internal`).
 */
export function jobFailureOf(
  job: { stalledCounter: number; attemptsMade: number },
  error: Pick<Error, 'message'>,
): JobFailure {
  if (error.message === STALLED_LIMIT_REASON || job.stalledCounter > WORKER_DEFAULTS.maxStalledCount) {
    const died = Math.max(job.stalledCounter, WORKER_DEFAULTS.maxStalledCount + 1);
    return {
      errorClass: 'worker_lost',
      reason:
        `the worker measuring this run died ${times(died)} (its process was killed or lost mid-run), ` +
        "so teapot stopped retrying it. This says nothing about the endpoint: look at the workers' " +
        'logs, memory and restarts.',
    };
  }
  return {
    errorClass: 'internal',
    reason: `the run job failed ${times(job.attemptsMade)}: ${error.message}`,
  };
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}
