import { changePointSurroundings, recordEvent, type ChangePoint, type PoolClient } from '@teapot/db';

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
  const { scheduled, deployedBefore } = await changePointSurroundings(
    client,
    changePoint,
    DEPLOYMENT_NEAR_MS,
  );
  if (!scheduled || deployedBefore) return false;
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
