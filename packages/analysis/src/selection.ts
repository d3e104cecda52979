import { SERVING_CONFIG_FIELDS, type RunFilter, type RunSelectionStore, type SelectedRun } from '@teapot/db';
import { AnalysisInputError } from './errors';

/** Which runs an analysis is over. Every field narrows; the time range is required and bounded. */
export interface RunSelection extends RunFilter {
  /** Runs whose client was saturated are left out (and counted) unless this is true. */
  includeSaturated?: boolean;
}

export interface SelectedRuns {
  runs: SelectedRun[];
  /** Client-saturated runs the selection matched but left out. */
  excludedSaturated: number;
}

/** The most runs one selection reads; beyond it the caller must narrow the range or the filters. */
export const MAX_SELECTED_RUNS = 20_000;

/** Checks a selection's shape; throws AnalysisInputError naming the parameter at fault. */
export function checkSelection(selection: RunSelection): void {
  const { from, to } = selection;
  if (!(from instanceof Date) || Number.isNaN(from.getTime()))
    throw new AnalysisInputError('from', 'must be a date');
  if (!(to instanceof Date) || Number.isNaN(to.getTime()))
    throw new AnalysisInputError('to', 'must be a date');
  if (from.getTime() >= to.getTime()) throw new AnalysisInputError('to', 'must be after from');
  for (const [field, values] of Object.entries(selection.config ?? {})) {
    const declared = (SERVING_CONFIG_FIELDS as Record<string, readonly [string, string]>)[field];
    if (!declared) throw new AnalysisInputError(field, 'is not a serving-configuration field');
    for (const value of values ?? []) {
      if (value === null) continue;
      const ok =
        declared[1] === 'text'
          ? typeof value === 'string'
          : declared[1] === 'int'
            ? Number.isSafeInteger(value)
            : typeof value === 'boolean';
      if (!ok)
        throw new AnalysisInputError(
          field,
          `must be ${declared[1] === 'bool' ? 'true or false' : `a ${declared[1]}`}`,
        );
    }
  }
}

/**
 * The measured runs a selection names, oldest first, with their configuration. Bounded: more than
 * MAX_SELECTED_RUNS matching runs is an AnalysisInputError on `from` (narrow the range).
 */
export async function selectRuns(runs: RunSelectionStore, selection: RunSelection): Promise<SelectedRuns> {
  checkSelection(selection);
  const { includeSaturated, ...filter } = selection;
  const matched = await runs.measuredRuns(filter, MAX_SELECTED_RUNS + 1);
  if (matched.length > MAX_SELECTED_RUNS) {
    throw new AnalysisInputError(
      'from',
      `selects more than ${MAX_SELECTED_RUNS} runs: narrow the time range or the filters`,
    );
  }
  return splitSaturated(matched, includeSaturated ?? false);
}

/** Leaves client-saturated runs out (counting them) unless they are to be kept. */
function splitSaturated(runs: readonly SelectedRun[], includeSaturated: boolean): SelectedRuns {
  const kept = includeSaturated ? [...runs] : runs.filter((run) => !run.clientSaturated);
  return { runs: kept, excludedSaturated: runs.length - kept.length };
}
