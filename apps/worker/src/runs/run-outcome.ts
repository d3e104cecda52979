import { runStatusOf, type RunStatus } from '@teapot/db';
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
