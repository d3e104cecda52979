import { snapshotOf } from '@teapot/contracts';
import {
  latestServingConfigIds,
  ProfileStore,
  queueScheduledRuns,
  type PooledPrismaClient,
  type QueuedSlot,
  type ScheduledProfile,
} from '@teapot/db';

type Pool = PooledPrismaClient['pool'];

export type ScheduledProfileRow = ScheduledProfile;
export type { QueuedSlot };

export interface DueSlot {
  profileId: string;
  slotKey: string;
  dueAtMs: number;
}

/** Every enabled, scheduled profile of a live endpoint: one small query per tick. */
export function loadScheduledProfiles(pool: Pool): Promise<ScheduledProfileRow[]> {
  return new ProfileStore(pool).scheduled();
}

/** Queues a run per due slot with the profile's snapshot (snapshotOf) and its endpoint's live configuration. */
export async function insertDueRuns(prisma: PooledPrismaClient, slots: DueSlot[]): Promise<QueuedSlot[]> {
  if (slots.length === 0) return [];
  const rows = await prisma.profile.findMany({
    where: { id: { in: slots.map((slot) => slot.profileId) }, enabled: true },
  });
  const profiles = new Map(rows.map((profile) => [profile.id, profile]));
  const configs = await latestServingConfigIds(
    prisma,
    rows.map((profile) => profile.endpointId),
  );
  return queueScheduledRuns(
    prisma.pool,
    slots.flatMap((slot) => {
      const profile = profiles.get(slot.profileId);
      if (!profile) return [];
      const configId = configs.get(profile.endpointId) ?? null;
      return [{ profileId: slot.profileId, slotKey: slot.slotKey, configId, snapshot: snapshotOf(profile) }];
    }),
  );
}
