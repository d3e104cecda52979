/** Every status a run can have, in the order a run moves through them (Prisma's RunStatus enum). */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'partial', 'failed', 'aborted'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** A run in one of these is over: nothing changes it again. */
export const FINAL_RUN_STATUSES = [
  'succeeded',
  'partial',
  'failed',
  'aborted',
] as const satisfies readonly RunStatusName[];
export type FinalRunStatus = (typeof FINAL_RUN_STATUSES)[number];

const FINAL: ReadonlySet<string> = new Set(FINAL_RUN_STATUSES);

export function isFinalRunStatus(status: string): status is FinalRunStatus {
  return FINAL.has(status);
}

/**
 * A run's figures count in trends, comparisons and rollups once it was measured: succeeded, partial,
 * or failed with a summary (failed runs carry error rates). Aborted runs never count.
 */
export const MEASURED_RUN_STATUSES = [
  'succeeded',
  'partial',
  'failed',
] as const satisfies readonly RunStatusName[];
