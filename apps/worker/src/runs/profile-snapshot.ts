import { parseProfileSnapshot, type ProfileSnapshot } from '@teapot/contracts';
import type { RunOptions, Target } from '@teapot/measure';

/** Measurement options from a run's stored snapshot; throws InvalidSnapshotError naming a bad field. */
export function runOptionsFromSnapshot(value: unknown, target: Target): RunOptions {
  return runOptionsOf(parseProfileSnapshot(value), target);
}

export function runOptionsOf(snapshot: ProfileSnapshot, target: Target): RunOptions {
  return {
    target,
    workload: snapshot.workload,
    load: snapshot.load,
    ...(snapshot.requestCount != null ? { requests: snapshot.requestCount } : {}),
    ...(snapshot.durationS != null ? { durationS: snapshot.durationS } : {}),
    warmupRequests: snapshot.warmupRequests,
    ...(snapshot.seed != null ? { seed: snapshot.seed } : {}),
    timeoutMs: snapshot.timeoutMs,
    stallTimeoutMs: snapshot.stallTimeoutMs,
    forceOutputLength: snapshot.forceOutputLength,
    transport: snapshot.transport,
    ...(Object.keys(snapshot.slo).length > 0 ? { slo: snapshot.slo } : {}),
  };
}
