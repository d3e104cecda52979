import type { RunResult } from '@teapot/measure';
import { writeRunResult, type PersistedRun, type PersistRunOptions } from './run-writer';
import type { RunStore } from './run-store';

/**
 * persistRunResult with the requests written by one INSERT of unnested arrays instead of binary
 * COPY: the baseline the storage bench measures COPY against. Not for production writes.
 */
export function persistRunResultByInsert(
  db: RunStore,
  runId: string,
  result: RunResult,
  options: PersistRunOptions = {},
): Promise<PersistedRun> {
  return writeRunResult(db, runId, result, options, 'unnest');
}
