import { snapshotOf } from '@teapot/contracts';
import { latestServingConfigIds, type PooledPrismaClient } from '@teapot/db';

type Pool = PooledPrismaClient['pool'];

export interface ScheduledProfileRow {
  id: string;
  scheduleCron: string | null;
  scheduleIntervalS: number | null;
  scheduleJitterS: number;
  /** The later of created/updated: slots before a profile's last change are never caught up. */
  changedAtMs: number;
}

export interface DueSlot {
  profileId: string;
  slotKey: string;
  dueAtMs: number;
}

export interface QueuedSlot {
  runId: string;
  slotKey: string;
}

const SCHEDULED_PROFILES = `
  SELECT p.id, p.schedule_cron, p.schedule_interval_s, p.schedule_jitter_s,
         (extract(epoch FROM greatest(p.created_at, p.updated_at)) * 1000)::float8 AS changed_at_ms
  FROM profiles p JOIN endpoints e ON e.id = p.endpoint_id
  WHERE p.enabled AND e.archived_at IS NULL
    AND (p.schedule_cron IS NOT NULL OR p.schedule_interval_s IS NOT NULL)`;

/** Every enabled, scheduled profile of a live endpoint: one small query per tick. */
export async function loadScheduledProfiles(pool: Pool): Promise<ScheduledProfileRow[]> {
  const { rows } = await pool.query<{
    id: string;
    schedule_cron: string | null;
    schedule_interval_s: number | null;
    schedule_jitter_s: number;
    changed_at_ms: number;
  }>(SCHEDULED_PROFILES);
  return rows.map((row) => ({
    id: row.id,
    scheduleCron: row.schedule_cron,
    scheduleIntervalS: row.schedule_interval_s,
    scheduleJitterS: row.schedule_jitter_s,
    changedAtMs: Number(row.changed_at_ms),
  }));
}

/*
 * One statement for a whole tick inserts a queued run per due slot, re-checking that the profile is
 * still enabled and its endpoint live. The unique slot_key makes a slot that another scheduler (or an
 * earlier tick) inserted a conflict: it is returned again only while still queued, so its job can be
 * re-added (BullMQ ignores a job id it already holds), which heals a tick that inserted runs but could
 * not reach Redis.
 */
const INSERT_DUE_RUNS = `
  INSERT INTO runs (id, endpoint_id, config_id, profile_id, profile_snapshot, status, trigger, slot_key, queued_at)
  SELECT gen_random_uuid(), p.endpoint_id, due.config_id, p.id, due.snapshot, 'queued', 'schedule', due.slot_key, now()
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[]) AS due(profile_id, slot_key, config_id, snapshot)
  JOIN profiles p ON p.id = due.profile_id AND p.enabled
  JOIN endpoints e ON e.id = p.endpoint_id AND e.archived_at IS NULL
  ON CONFLICT (slot_key) DO UPDATE SET slot_key = EXCLUDED.slot_key WHERE runs.status = 'queued'
  RETURNING id, slot_key`;

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
  const due = slots.flatMap((slot) => {
    const profile = profiles.get(slot.profileId);
    return profile ? [{ slot, profile }] : [];
  });
  const inserted = await prisma.pool.query<{ id: string; slot_key: string }>(INSERT_DUE_RUNS, [
    due.map(({ slot }) => slot.profileId),
    due.map(({ slot }) => slot.slotKey),
    due.map(({ profile }) => configs.get(profile.endpointId) ?? null),
    due.map(({ profile }) => JSON.stringify(snapshotOf(profile))),
  ]);
  return inserted.rows.map((row) => ({ runId: row.id, slotKey: row.slot_key }));
}
