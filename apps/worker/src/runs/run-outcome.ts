import type { RunStatus } from '@teapot/db';
import type { RunResult } from '@teapot/measure';

export interface RunVerdict {
  status: RunStatus;
  error: string | null;
}

/**
 * Final status of a measured run: aborted when stopped from outside; failed when no measured
 * request succeeded; partial when some failed; else succeeded. Requests still running at the end of
 * a duration-bounded run are reported as incomplete and do not make a run partial.
 */
export function verdictOf(result: RunResult, abortReason: string | null): RunVerdict {
  if (result.aborted) return { status: 'aborted', error: abortReason ?? 'the run was aborted' };
  const { succeeded, failed } = result.summary.requests;
  const errors = describeErrors(result.summary.errorsByClass);
  if (succeeded === 0) return { status: 'failed', error: `no request succeeded${errors}` };
  if (failed > 0)
    return { status: 'partial', error: `${failed} of ${succeeded + failed} requests failed${errors}` };
  return { status: 'succeeded', error: null };
}

function describeErrors(byClass: Partial<Record<string, number>>): string {
  const parts = Object.entries(byClass)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}
