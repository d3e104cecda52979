import { snapshotOf } from '@teapot/contracts';
import {
  latestServingConfigIds,
  ProfileStore,
  queueScheduledRuns,
  recordSkippedSlots,
  SweepStore,
  type PooledPrismaClient,
  type QueuedSlot,
  type QueuedSweepSlot,
  type ScheduledProfile,
} from '@teapot/db';

type Pool = PooledPrismaClient['pool'];

export type ScheduledProfileRow = ScheduledProfile;
export type { QueuedSlot, QueuedSweepSlot };

/**
 * What a tick queued: a run per due slot of a single-load profile, a sweep per slot of a sweep
 * profile; and how many missed slots it newly recorded as skipped.
 */
export interface QueuedSlots {
  runs: QueuedSlot[];
  sweeps: QueuedSweepSlot[];
  skipped: number;
}

export interface DueSlot {
  profileId: string;
  slotKey: string;
  dueAtMs: number;
}

/** A slot that came and went with nothing queued for it. */
export interface MissedSlot {
  profileId: string;
  slotKey: string;
  reason: string;
}

/** Every enabled, scheduled profile of a live endpoint: one small query per tick. */
export function loadScheduledProfiles(pool: Pool): Promise<ScheduledProfileRow[]> {
  return new ProfileStore(pool).scheduled();
}

/**
 * Queues a run per due slot with the profile's snapshot (snapshotOf) and its endpoint's live
 * configuration; a slot of a profile whose `sweep` is set queues a sweep of it instead. Missed slots
 * of single-load profiles are recorded as skipped runs with their reason (a sweep profile's are not).
 */
export async function insertDueRuns(
  prisma: PooledPrismaClient,
  slots: DueSlot[],
  missed: MissedSlot[] = [],
): Promise<QueuedSlots> {
  if (slots.length === 0) return { runs: [], sweeps: [], skipped: 0 };
  const rows = await prisma.profile.findMany({
    where: { id: { in: slots.map((slot) => slot.profileId) }, enabled: true },
  });
  const profiles = new Map(rows.map((profile) => [profile.id, profile]));
  const configs = await latestServingConfigIds(
    prisma,
    rows.map((profile) => profile.endpointId),
  );
  const due = slots.flatMap((slot) => {
    const profile = profiles.get(slot.profileId);
    if (!profile) return [];
    const configId = configs.get(profile.endpointId) ?? null;
    return [{ profile, slot: { profileId: slot.profileId, slotKey: slot.slotKey, configId } }];
  });
  const skipped = missed.flatMap((slot) => {
    const profile = profiles.get(slot.profileId);
    if (!profile || profile.sweep !== null) return [];
    const configId = configs.get(profile.endpointId) ?? null;
    return [{ ...slot, configId, snapshot: snapshotOf(profile) }];
  });
  const [runs, sweeps, recorded] = await Promise.all([
    queueScheduledRuns(
      prisma.pool,
      due
        .filter(({ profile }) => profile.sweep === null)
        .map(({ profile, slot }) => ({ ...slot, snapshot: snapshotOf(profile) })),
    ),
    new SweepStore(prisma.pool).queueScheduled(
      due
        .filter(({ profile }) => profile.sweep !== null)
        .map(({ profile, slot }) => ({ ...slot, spec: profile.sweep, snapshot: snapshotOf(profile) })),
    ),
    recordSkippedSlots(prisma.pool, skipped),
  ]);
  return { runs, sweeps, skipped: recorded };
}
