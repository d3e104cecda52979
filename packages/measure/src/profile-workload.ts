import type { ProfileWorkload, Workload } from '@teapot/run-definitions';
import { conversationsFromAsset } from './datasets';
import { traceFromAsset } from './trace';

/**
 * The run's workload from a profile's: a named dataset or trace is read from `text`, its stored file
 * (null when none is stored). Throws a DatasetError or TraceError naming the line and field.
 */
export function measuredWorkload(workload: ProfileWorkload, seed: number, text: string | null): Workload {
  if (workload.kind === 'dataset-asset') return conversationsFromAsset(workload, text, seed);
  if (workload.kind === 'trace-asset') return traceFromAsset(workload, text);
  return workload;
}

/** The stored file a profile's workload names, if any. */
export function assetOf(workload: ProfileWorkload): string | null {
  return workload.kind === 'dataset-asset' || workload.kind === 'trace-asset' ? workload.sha256 : null;
}
