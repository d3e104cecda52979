import type { RunErrorClass, RunTrigger } from './generated/prisma/enums';
import { recordEvent, type OutboxTransaction, type RecordedEvent } from './webhook-outbox';

export interface FailedRun {
  id: string;
  endpointId: string;
  profileId: string | null;
  trigger: RunTrigger;
  error: string | null;
  /** Which kind of cause: a worker that died (`worker_lost`) is not the endpoint failing (`endpoint`). */
  errorClass: RunErrorClass | null;
  finishedAt: Date;
  /** Measured requests, when the run measured any. */
  requests?: { succeeded: number; failed: number } | null;
}

/**
 * The `run.failed` event of a run that just became `failed`, written in the same transaction as
 * the run's final status (the outbox). Callers emit it only on the transition, so re-persisting a
 * failed run never announces it twice.
 */
export function recordRunFailed(tx: OutboxTransaction, run: FailedRun): Promise<RecordedEvent> {
  return recordEvent(tx, {
    type: 'run.failed',
    endpointId: run.endpointId,
    data: {
      runId: run.id,
      profileId: run.profileId,
      trigger: run.trigger,
      status: 'failed',
      error: run.error,
      errorClass: run.errorClass,
      finishedAt: run.finishedAt.toISOString(),
      requests: run.requests ?? null,
    },
    links: {
      run: `/runs/${run.id}`,
      ...(run.profileId ? { profile: `/profiles/${run.profileId}` } : {}),
    },
  });
}
