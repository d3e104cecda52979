import type { PoolClient } from 'pg';
import type { RunStore } from '../run-store';
import {
  seriesItemsOf,
  type ChangePoint,
  type ChangePointAttribution,
  type SeriesItems,
} from './change-points';
import { SERVING_CONFIG_FIELDS, SERVING_CONFIG_FIELD_NAMES, type ConfigValue } from './serving-config';

/**
 * What a change point is attributed from: its endpoint, the first item of its series after the change
 * and the last one before it. The items are runs, or capacity searches in a series of them: both record
 * the serving configuration they measured and when they started.
 */
export interface AttributionSubject {
  id: string;
  endpointId: string;
  startId: string | null;
  previousId: string | null;
}

/** The start and configuration of the run or capacity search `id` names (each looked up by its primary key). */
const item = (id: string) =>
  `SELECT started_at, config_id FROM runs WHERE id = ${id}
   UNION ALL SELECT started_at, config_id FROM sweeps WHERE id = ${id}`;

type AttributionRow = {
  id: string;
  version_before: number | null;
  version_after: number | null;
  config_before: Record<string, ConfigValue> | null;
  config_after: Record<string, ConfigValue> | null;
  deployments: Array<{ id: string; label: string; version: string | null; effective_at: string }>;
};

/**
 * The serving configurations and deployments around each subject, in one statement however many there
 * are (a page of listed change points), keyed by subject id. Deployments count when they took effect
 * after the item before the change started, up to the start of the first item after it.
 */
export async function changePointAttributions(
  db: RunStore | PoolClient,
  subjects: readonly AttributionSubject[],
): Promise<Map<string, ChangePointAttribution>> {
  if (subjects.length === 0) return new Map();
  const queryable = 'query' in db ? db : db.pool;
  const { rows } = await queryable.query<AttributionRow>(
    `SELECT s.id, cb.version AS version_before, ca.version AS version_after,
            to_jsonb(cb) AS config_before, to_jsonb(ca) AS config_after,
            COALESCE((SELECT json_agg(json_build_object('id', d.id, 'label', d.label, 'version', d.version,
                                                        'effective_at', d.effective_at) ORDER BY d.effective_at)
                        FROM deployments d
                       WHERE d.endpoint_id = s.endpoint_id AND d.effective_at > b.started_at
                         AND d.effective_at <= a.started_at), '[]') AS deployments
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[]) AS s(id, endpoint_id, start_id, previous_id)
       LEFT JOIN LATERAL (${item('s.start_id')}) a ON true
       LEFT JOIN LATERAL (${item('s.previous_id')}) b ON true
       LEFT JOIN serving_configs ca ON ca.id = a.config_id
       LEFT JOIN serving_configs cb ON cb.id = b.config_id`,
    [
      subjects.map((s) => s.id),
      subjects.map((s) => s.endpointId),
      subjects.map((s) => s.startId),
      subjects.map((s) => s.previousId),
    ],
  );
  return new Map(rows.map((row) => [row.id, attributionOf(row)]));
}

function attributionOf(row: AttributionRow): ChangePointAttribution {
  const { config_before: before, config_after: after } = row;
  const configBefore = row.version_before;
  const configAfter = row.version_after;
  const changed = before !== null && after !== null && configBefore !== configAfter;
  const value = (config: Record<string, ConfigValue>, field: keyof typeof SERVING_CONFIG_FIELDS) =>
    config[SERVING_CONFIG_FIELDS[field][0]] ?? null;
  const deployments = row.deployments.map((d) => ({
    id: d.id,
    label: d.label,
    version: d.version,
    effectiveAt: new Date(d.effective_at),
  }));
  return {
    configBefore,
    configAfter,
    configChanges: changed
      ? SERVING_CONFIG_FIELD_NAMES.filter((f) => value(before, f) !== value(after, f)).map((field) => ({
          field,
          before: value(before, field),
          after: value(after, field),
        }))
      : [],
    deployments,
    explained: configBefore !== configAfter || deployments.length > 0,
  };
}

/** One change point's attribution (of a run series or a capacity-search series), e.g. for its webhook. */
export async function changePointAttribution(
  db: RunStore | PoolClient,
  changePoint: Pick<ChangePoint, 'id' | 'endpointId'> & SeriesItems,
): Promise<ChangePointAttribution> {
  const { start, previous } = seriesItemsOf(changePoint);
  const subject = {
    id: changePoint.id,
    endpointId: changePoint.endpointId,
    startId: start,
    previousId: previous,
  };
  return (await changePointAttributions(db, [subject])).get(changePoint.id) as ChangePointAttribution;
}
