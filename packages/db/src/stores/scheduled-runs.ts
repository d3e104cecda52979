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

/** A slot that was never queued in time, recorded as a run that did not happen and why. */
export interface SkippedSlotToRecord extends ScheduledRunToQueue {
  reason: string;
}

/*
 * A skipped slot is a run row like any other (so GET /runs and a trend's gap show it): `aborted`,
 * class `stopped`, the reason in `error`, queued at its slot time (so it sorts where it was due and
 * before the run queued for a later slot). A slot some scheduler did queue keeps its row.
 */
const INSERT_SKIPPED_SLOTS = `
  INSERT INTO runs (id, endpoint_id, config_id, profile_id, profile_snapshot, status, trigger, slot_key,
                    queued_at, finished_at, error, error_class)
  SELECT gen_random_uuid(), p.endpoint_id, slot.config_id, p.id, slot.snapshot, 'aborted', 'schedule',
         slot.slot_key, to_timestamp(split_part(slot.slot_key, '@', 2)::bigint / 1000.0), now(),
         slot.reason, 'stopped'
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::text[])
       AS slot(profile_id, slot_key, config_id, snapshot, reason)
  JOIN profiles p ON p.id = slot.profile_id
  ON CONFLICT (slot_key) DO NOTHING`;

/** Records slots that were skipped before any run was queued for them; returns how many were new. */
export async function recordSkippedSlots(
  db: RunStore,
  slots: readonly SkippedSlotToRecord[],
): Promise<number> {
  if (slots.length === 0) return 0;
  const { rowCount } = await poolOf(db).query(INSERT_SKIPPED_SLOTS, [
    slots.map((slot) => slot.profileId),
    slots.map((slot) => slot.slotKey),
    slots.map((slot) => slot.configId),
    slots.map((slot) => JSON.stringify(slot.snapshot)),
    slots.map((slot) => slot.reason),
  ]);
  return rowCount ?? 0;
}

/** The slot key of each profile's latest scheduled run (queued, run or skipped), for the profiles that have one. */
export async function lastScheduledSlotKeys(
  db: RunStore,
  profileIds: readonly string[],
): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  // One index probe per profile (profile_id, queued_at), however many runs it has.
  const { rows } = await poolOf(db).query<{ profile_id: string; slot_key: string }>(
    `SELECT p.id AS profile_id, last.slot_key
       FROM unnest($1::uuid[]) AS p(id)
       CROSS JOIN LATERAL (
         SELECT slot_key FROM runs
          WHERE profile_id = p.id AND trigger = 'schedule' AND slot_key IS NOT NULL
          ORDER BY queued_at DESC LIMIT 1) AS last`,
    [profileIds],
  );
  return new Map(rows.map((row) => [row.profile_id, row.slot_key]));
}
