import type { Load, RunOptions, Slo, Target, Workload } from '@teapot/measure';

/**
 * `runs.profile_snapshot`: the Profile row (Prisma field names) as it was when the run was queued.
 * The scheduler builds it in SQL (see scheduled-runs.ts); a manual run stores the Profile as read.
 */
export interface ProfileSnapshot {
  id: string;
  name: string;
  endpointId: string;
  workload: Workload;
  load: Load;
  requestCount: number | null;
  durationS: number | null;
  warmupRequests: number;
  seed: number | null;
  timeoutMs: number;
  stallTimeoutMs: number;
  forceOutputLength: boolean;
  slo: Slo;
  scheduleCron: string | null;
  scheduleIntervalS: number | null;
  scheduleJitterS: number;
}

/** A snapshot the worker cannot run: the run fails with this message, the worker carries on. */
export class InvalidSnapshotError extends Error {
  override readonly name = 'InvalidSnapshotError';
}

/** Measurement options from a snapshot; the API validated the profile, this re-checks the shape. */
export function runOptionsFromSnapshot(value: unknown, target: Target): RunOptions {
  const snapshot = asSnapshot(value);
  return {
    target,
    workload: snapshot.workload,
    load: snapshot.load,
    ...(snapshot.requestCount != null ? { requests: snapshot.requestCount } : {}),
    ...(snapshot.durationS != null ? { durationS: snapshot.durationS } : {}),
    warmupRequests: snapshot.warmupRequests ?? 0,
    ...(snapshot.seed != null ? { seed: snapshot.seed } : {}),
    timeoutMs: snapshot.timeoutMs,
    stallTimeoutMs: snapshot.stallTimeoutMs,
    forceOutputLength: snapshot.forceOutputLength ?? true,
    ...(snapshot.slo && Object.keys(snapshot.slo).length > 0 ? { slo: snapshot.slo } : {}),
  };
}

export function asSnapshot(value: unknown): ProfileSnapshot {
  if (!isObject(value)) throw new InvalidSnapshotError('the run has no profile snapshot');
  const { workload, load, requestCount, durationS } = value;
  if (!isObject(workload) || (workload.kind !== 'synthetic' && workload.kind !== 'dataset')) {
    throw new InvalidSnapshotError('profile snapshot: workload.kind must be "synthetic" or "dataset"');
  }
  if (!isObject(load) || (load.kind !== 'closed' && load.kind !== 'open')) {
    throw new InvalidSnapshotError('profile snapshot: load.kind must be "closed" or "open"');
  }
  if (!isPositive(requestCount) && !isPositive(durationS)) {
    throw new InvalidSnapshotError('profile snapshot: needs a positive requestCount or durationS');
  }
  for (const field of ['timeoutMs', 'stallTimeoutMs'] as const) {
    if (!isPositive(value[field]))
      throw new InvalidSnapshotError(`profile snapshot: ${field} must be positive`);
  }
  return value as unknown as ProfileSnapshot;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
