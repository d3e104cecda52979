import type { ChangePoint } from '@teapot/analysis';
import { recordEvent, type PoolClient } from '@teapot/db';

/** A deployment-triggered run of the endpoint this long before a change explains it: no alert. */
export const DEPLOYMENT_NEAR_MS = 24 * 3_600_000;

/**
 * Writes a `changepoint.detected` webhook event, in the transaction that stores the change point,
 * when it is news: a robust-mode change (Otava mode is kept for comparison and flags sub-percent
 * shifts) of a scheduled run, with no deployment-triggered run of the endpoint in the day up to it.
 * A change a deployment caused is reported by that deployment's own verification instead.
 */
export async function recordChangePointEvent(client: PoolClient, changePoint: ChangePoint): Promise<boolean> {
  if (changePoint.mode !== 'robust') return false;
  const { rows } = await client.query<{ scheduled: boolean; deployed: boolean }>(
    `SELECT (SELECT trigger::text = 'schedule' FROM runs WHERE id = $1) AS scheduled,
            EXISTS (SELECT 1 FROM runs WHERE endpoint_id = $2 AND trigger::text = 'deployment'
                       AND started_at > $3::timestamptz - make_interval(secs => $4) AND started_at <= $3) AS deployed`,
    [changePoint.runId, changePoint.endpointId, changePoint.at, DEPLOYMENT_NEAR_MS / 1000],
  );
  if (!rows[0]?.scheduled || rows[0].deployed) return false;
  const series = new URLSearchParams({
    endpointId: changePoint.endpointId,
    profileId: changePoint.profileId,
    metric: changePoint.metric,
    statistic: changePoint.statistic,
    mode: changePoint.mode,
  });
  await recordEvent(client, {
    type: 'changepoint.detected',
    endpointId: changePoint.endpointId,
    data: {
      id: changePoint.id,
      endpointId: changePoint.endpointId,
      profileId: changePoint.profileId,
      metric: changePoint.metric,
      statistic: changePoint.statistic,
      unit: changePoint.unit,
      mode: changePoint.mode,
      kind: changePoint.kind,
      at: changePoint.at.toISOString(),
      runId: changePoint.runId,
      previousRunId: changePoint.previousRunId,
      endRunId: changePoint.endRunId,
      meanBefore: changePoint.meanBefore,
      meanAfter: changePoint.meanAfter,
      magnitude: changePoint.magnitude,
      pValue: changePoint.pValue,
    },
    links: { run: `/runs/${changePoint.runId}`, changePoints: `/change-points?${series}` },
  });
  return true;
}
