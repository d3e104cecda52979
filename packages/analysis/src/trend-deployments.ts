import type { DeploymentVerdictName } from '@teapot/contracts';
import type { DeploymentStore } from '@teapot/db';
import type { Trend } from './trend';

/** A deployment drawn on a trend: when it took effect on which of the trend's series. */
export interface TrendDeployment {
  id: string;
  endpointId: string;
  effectiveAt: Date;
  label: string;
  version: string | null;
  /** `pending` while its post-deployment runs are measured or compared. */
  verdict: DeploymentVerdictName | 'pending';
  /** Indexes into `series` of the series whose runs measured the deployment's endpoint. */
  series: number[];
}

/** More than this many deployments in one trend's range and endpoints are not listed (oldest dropped). */
export const MAX_TREND_DEPLOYMENTS = 1_000;

/**
 * The deployments that took effect within the trend's range (`from` inclusive, `to` exclusive) on
 * the endpoints its series measured, oldest first, each with the series it falls in: a series
 * grouped by weight quantization spans every endpoint of its points, one per endpoint just its own.
 */
export async function trendDeployments(
  deployments: DeploymentStore,
  trend: Trend,
): Promise<TrendDeployment[]> {
  const seriesOf = new Map<string, number[]>();
  trend.series.forEach((series, index) => {
    const endpoints = new Set(
      series.points.flatMap((point) => point.configVersions.map((v) => v.endpointId)),
    );
    for (const endpointId of endpoints)
      seriesOf.set(endpointId, [...(seriesOf.get(endpointId) ?? []), index]);
  });
  if (seriesOf.size === 0) return [];
  const rows = await deployments.inRange([...seriesOf.keys()], trend.from, trend.to, MAX_TREND_DEPLOYMENTS);
  return rows.map((row) => ({
    ...row,
    verdict: row.verdict ?? 'pending',
    series: seriesOf.get(row.endpointId) ?? [],
  }));
}
