import { attributionSummary, type ChangePointNews, type SummarisedAttribution } from '@teapot/analysis';
import type { WebhookEventType } from '@teapot/contracts';
import {
  changePointAttribution,
  changePointSurroundings,
  markChangePointsAnnounced,
  recordEvent,
  type PoolClient,
  type StoredChangePoint,
} from '@teapot/db';

/** A deployment-triggered run of the endpoint this long before a change explains it: no alert. */
export const DEPLOYMENT_NEAR_MS = 24 * 3_600_000;

/**
 * Writes the webhook events of a recomputation's news, in the transaction that stores the change points:
 * - one `changepoint.detected` per new robust-mode change (Otava mode is kept for comparison and flags
 *   sub-percent shifts) of a scheduled run with no deployment-triggered run of the endpoint in the day up
 *   to it (a change a deployment caused is reported by that deployment's own verification), listing
 *   every series it shows in (`changePoints`), the largest first and its fields at the top level;
 * - `changepoint.updated` for an announced one that changed materially as later runs refined it;
 * - `changepoint.retracted` for an announced one that is no longer found.
 * The same change keeps its id through all three. Returns how many events it wrote.
 */
export async function recordChangePointNews(client: PoolClient, news: ChangePointNews): Promise<number> {
  const announced: StoredChangePoint[] = [];
  for (const change of news.detectedTogether) {
    const told: StoredChangePoint[] = [];
    for (const changePoint of change) {
      if (changePoint.mode !== 'robust') continue;
      const { scheduled, deployedBefore } = await changePointSurroundings(
        client,
        changePoint,
        DEPLOYMENT_NEAR_MS,
      );
      if (scheduled && !deployedBefore) told.push(changePoint);
    }
    if (told.length === 0) continue;
    const attribution = await changePointAttribution(client, told[0]);
    await recordChangePointEvent(client, 'changepoint.detected', told[0], told, {
      ...attribution,
      summary: attributionSummary(attribution),
    });
    announced.push(...told);
  }
  // Only announced change points are updated or retracted in news, so they passed the filters above.
  for (const changePoint of news.updated) {
    await recordChangePointEvent(client, 'changepoint.updated', changePoint);
    announced.push(changePoint);
  }
  const retracted = news.retracted.filter((c) => c.announcedMagnitude !== null);
  for (const changePoint of retracted)
    await recordChangePointEvent(client, 'changepoint.retracted', changePoint);
  await markChangePointsAnnounced(
    client,
    announced.map((c) => ({ id: c.id, magnitude: c.magnitude })),
  );
  return announced.length + retracted.length;
}

async function recordChangePointEvent(
  client: PoolClient,
  type: Extract<WebhookEventType, `changepoint.${string}`>,
  changePoint: StoredChangePoint,
  together: readonly StoredChangePoint[] = [changePoint],
  attribution?: SummarisedAttribution,
): Promise<void> {
  const series = new URLSearchParams({
    endpointId: changePoint.endpointId,
    profileId: changePoint.profileId,
    metric: changePoint.metric,
    statistic: changePoint.statistic,
    mode: changePoint.mode,
  });
  await recordEvent(client, {
    type,
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
      // A capacity or cost change point's series is of capacity searches: these name sweeps instead.
      sweepId: changePoint.sweepId,
      previousSweepId: changePoint.previousSweepId,
      endSweepId: changePoint.endSweepId,
      runsBefore: changePoint.runsBefore,
      runsAfter: changePoint.runsAfter,
      meanBefore: changePoint.meanBefore,
      meanAfter: changePoint.meanAfter,
      magnitude: changePoint.magnitude,
      pValue: changePoint.pValue,
      detectedAt: changePoint.detectedAt.toISOString(),
      changePoints: together.map((c) => ({
        id: c.id,
        metric: c.metric,
        statistic: c.statistic,
        unit: c.unit,
        kind: c.kind,
        runId: c.runId,
        sweepId: c.sweepId,
        meanBefore: c.meanBefore,
        meanAfter: c.meanAfter,
        magnitude: c.magnitude,
        pValue: c.pValue,
      })),
      ...(attribution ? { attribution } : {}),
    },
    links: {
      ...(changePoint.sweepId !== null
        ? { sweep: `/sweeps/${changePoint.sweepId}` }
        : { run: `/runs/${changePoint.runId}` }),
      changePoints: `/change-points?${series}`,
    },
  });
}
