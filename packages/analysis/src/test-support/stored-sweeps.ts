import type { Database } from '@teapot/db';
import { storeEndpoint } from '@teapot/db/testing';

/** A finished sweep as the analysis specs store it: only what the capacity series read. */
export interface StoredSweep {
  endpointId: string;
  profileId: string;
  configId: string;
  startedAt: Date;
  capacity: number | null;
  cost?: number | null;
  dimension?: 'rate' | 'concurrency';
  kind?: 'capacity' | 'points';
  status?: 'succeeded' | 'failed';
  stopReason?: 'converged' | 'below_lowest' | 'endpoint_failed' | 'completed';
  trigger?: 'schedule' | 'deployment';
}

/** Stores a finished sweep (a converged, scheduled capacity search in req/s unless told); returns its id. */
export async function storeSweep(db: Database, sweep: StoredSweep): Promise<string> {
  const stored = await db.prisma.sweep.create({
    data: {
      endpointId: sweep.endpointId,
      profileId: sweep.profileId,
      configId: sweep.configId,
      trigger: sweep.trigger ?? 'schedule',
      spec: { kind: sweep.kind ?? 'capacity', dimension: sweep.dimension ?? 'rate' },
      profileSnapshot: {},
      status: sweep.status ?? 'succeeded',
      stopReason: sweep.stopReason ?? 'converged',
      capacity: sweep.capacity,
      costPerMtokAtCapacity: sweep.cost ?? null,
      startedAt: sweep.startedAt,
    },
  });
  return stored.id;
}

/** An endpoint with an FP16 (v1) and an FP8 (v2) serving configuration, and a profile of it. */
export async function storeSweepPair(
  db: Database,
): Promise<{ endpointId: string; profileId: string; configs: Record<'fp16' | 'fp8', string> }> {
  const endpointId = await storeEndpoint(db);
  const configs = { fp16: '', fp8: '' };
  for (const [version, weightQuant] of [
    [1, 'fp16'],
    [2, 'fp8'],
  ] as const)
    configs[weightQuant] = (
      await db.prisma.servingConfig.create({ data: { endpointId, version, weightQuant } })
    ).id;
  const profile = await db.prisma.profile.create({ data: { name: 'p', endpointId, workload: {}, load: {} } });
  return { endpointId, profileId: profile.id, configs };
}
