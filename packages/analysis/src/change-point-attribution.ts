import {
  changePointAttributions,
  type ChangePoint,
  type ChangePointAttribution,
  type PoolClient,
  type RunStore,
  seriesItemsOf,
} from '@teapot/db';

/** An attribution with its one-line summary, as the API and the `changepoint.detected` webhook carry it. */
export type SummarisedAttribution = ChangePointAttribution & { summary: string };

/**
 * One line on what the change coincides with: "coincides with config v7 (from v6: weightQuant fp16 ->
 * fp8), deployment 'moved to FP8'", or "no recorded change: unexplained" (the alert a team most needs).
 */
export function attributionSummary(attribution: ChangePointAttribution): string {
  const parts: string[] = [];
  if (attribution.configBefore !== attribution.configAfter) {
    const fields = attribution.configChanges.map((c) => `${c.field} ${c.before} -> ${c.after}`);
    parts.push(
      `config v${attribution.configAfter ?? 'none'} (from v${attribution.configBefore ?? 'none'}` +
        `${fields.length ? `: ${fields.join(', ')}` : ''})`,
    );
  }
  for (const deployment of attribution.deployments) parts.push(`deployment '${deployment.label}'`);
  return parts.length ? `coincides with ${parts.join(', ')}` : 'no recorded change: unexplained';
}

/**
 * Each change point with its attribution and summary, read in one statement for the whole list (a
 * page of `GET /change-points`), in the list's order.
 */
export async function withAttribution<T extends ChangePoint>(
  db: RunStore | PoolClient,
  changePoints: readonly T[],
): Promise<Array<T & { attribution: SummarisedAttribution }>> {
  const attributions = await changePointAttributions(
    db,
    changePoints.map((c) => {
      // A capacity or cost change point's items are capacity searches.
      const { start, previous } = seriesItemsOf(c);
      return { id: c.id, endpointId: c.endpointId, startId: start, previousId: previous };
    }),
  );
  return changePoints.map((changePoint) => {
    const attribution = attributions.get(changePoint.id) as ChangePointAttribution;
    return { ...changePoint, attribution: { ...attribution, summary: attributionSummary(attribution) } };
  });
}
