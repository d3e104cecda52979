import { poolOf, type RunStore } from '../run-store';

/** A due slot's run to queue: the profile's snapshot and its endpoint's live configuration. */
export interface ScheduledRunToQueue {
  profileId: string;
  slotKey: string;
  configId: string | null;
  snapshot: unknown;
}

export interface QueuedSlot {
  runId: string;
  slotKey: string;
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

/** Queues one scheduled run per slot in one statement; slots already queued come back, started ones do not. */
export async function queueScheduledRuns(
  db: RunStore,
  runs: readonly ScheduledRunToQueue[],
): Promise<QueuedSlot[]> {
  if (runs.length === 0) return [];
  const { rows } = await poolOf(db).query<{ id: string; slot_key: string }>(INSERT_DUE_RUNS, [
    runs.map((run) => run.profileId),
    runs.map((run) => run.slotKey),
    runs.map((run) => run.configId),
    runs.map((run) => JSON.stringify(run.snapshot)),
  ]);
  return rows.map((row) => ({ runId: row.id, slotKey: row.slot_key }));
}
