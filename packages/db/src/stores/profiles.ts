import { queriesOf, type ReadStore } from '../run-store';

/** A profile's comparison thresholds as stored (profiles.comparison_thresholds), not yet checked. */
export interface StoredThresholds {
  profileId: string;
  thresholds: Record<string, unknown>;
}

/** An enabled, scheduled profile of a live endpoint. */
export interface ScheduledProfile {
  id: string;
  scheduleCron: string | null;
  scheduleIntervalS: number | null;
  scheduleJitterS: number;
  /** The later of created/updated: slots before a profile's last change are never caught up. */
  changedAtMs: number;
}

const SCHEDULED_PROFILES = `
  SELECT p.id, p.schedule_cron, p.schedule_interval_s, p.schedule_jitter_s,
         (extract(epoch FROM greatest(p.created_at, p.updated_at)) * 1000)::float8 AS changed_at_ms
  FROM profiles p JOIN endpoints e ON e.id = p.endpoint_id
  WHERE p.enabled AND e.archived_at IS NULL
    AND (p.schedule_cron IS NOT NULL OR p.schedule_interval_s IS NOT NULL)`;

/** What analyses and the scheduler read of profiles beyond plain CRUD. */
export class ProfileStore {
  constructor(private readonly db: ReadStore) {}

  /** The non-empty comparison thresholds of these profiles, by profile id. */
  async comparisonThresholds(profileIds: readonly string[]): Promise<StoredThresholds[]> {
    if (profileIds.length === 0) return [];
    const { rows } = await queriesOf(this.db).query<{
      id: string;
      comparison_thresholds: Record<string, unknown> | null;
    }>(
      `SELECT id, comparison_thresholds FROM profiles
        WHERE id = ANY($1::uuid[]) AND comparison_thresholds <> '{}'::jsonb ORDER BY id`,
      [profileIds],
    );
    return rows.map((row) => ({ profileId: row.id, thresholds: row.comparison_thresholds ?? {} }));
  }

  /** The profile's name; null when it no longer exists. */
  async nameOf(profileId: string): Promise<string | null> {
    const { rows } = await queriesOf(this.db).query<{ name: string }>(
      'SELECT name FROM profiles WHERE id = $1',
      [profileId],
    );
    return rows[0]?.name ?? null;
  }

  /** Every enabled, scheduled profile of a live endpoint: one small query per scheduler tick. */
  async scheduled(): Promise<ScheduledProfile[]> {
    const { rows } = await queriesOf(this.db).query<{
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
}
