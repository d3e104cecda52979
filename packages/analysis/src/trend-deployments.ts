import type { DeploymentVerdictName } from '@teapot/contracts';
import { poolOf, type RunStore } from '@teapot/db';
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
export async function trendDeployments(db: RunStore, trend: Trend): Promise<TrendDeployment[]> {
  const seriesOf = new Map<string, number[]>();
  trend.series.forEach((series, index) => {
    const endpoints = new Set(
      series.points.flatMap((point) => point.configVersions.map((v) => v.endpointId)),
    );
    for (const endpointId of endpoints)
      seriesOf.set(endpointId, [...(seriesOf.get(endpointId) ?? []), index]);
  });
  if (seriesOf.size === 0) return [];
  const { rows } = await poolOf(db).query<{
    id: string;
    endpoint_id: string;
    effective_at: Date;
    label: string;
    version: string | null;
    verdict: DeploymentVerdictName | null;
  }>(
    `SELECT * FROM (
       SELECT id, endpoint_id, effective_at, label, version, verdict::text AS verdict FROM deployments
        WHERE endpoint_id = ANY($1::uuid[]) AND effective_at >= $2 AND effective_at < $3
        ORDER BY effective_at DESC, id DESC LIMIT $4) latest
      ORDER BY effective_at, id`,
    [[...seriesOf.keys()], trend.from, trend.to, MAX_TREND_DEPLOYMENTS],
  );
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    effectiveAt: row.effective_at,
    label: row.label,
    version: row.version,
    verdict: row.verdict ?? 'pending',
    series: seriesOf.get(row.endpoint_id) ?? [],
  }));
}
