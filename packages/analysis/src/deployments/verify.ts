import {
  isFinalRunStatus,
  type DeploymentVerdictName,
  type DeploymentVerification,
  type MetricVerification,
  type ProfileVerification,
  type RunStatusName,
} from '@teapot/contracts';
import { poolOf, type RunStore } from '@teapot/db';
import { compare, DEFAULT_COMPARISON_METRICS, type Comparison } from '../comparisons/compare';
import type { Verdict } from '../comparisons/verdict';

/** The deployment row fields a verification reads. */
export interface DeploymentToVerify {
  id: string;
  effectiveAt: Date;
  profileIds: string[];
  /** K: the last K successful runs of each profile before effectiveAt. */
  baselineRuns: number;
  /** Relative change that matters, for every metric but the error rate (absolute, compare's default). */
  threshold: number;
}

export type VerificationProgress =
  { state: 'measuring'; unfinishedRuns: number } | { state: 'done'; verification: DeploymentVerification };

export interface VerifyOptions {
  /** Bootstrap iterations (compare's default otherwise). */
  iterations?: number;
}

/** Statistics compared per distribution metric; compare leaves out a tail its samples cannot support. */
export const DEPLOYMENT_STATISTICS = ['p50', 'p90', 'p99'] as const;
const MEASURED = new Set<RunStatusName>(['succeeded', 'partial']);

/**
 * The verification of a deployment once every run it queued is final: per profile, its measured
 * post-deployment runs against the last K successful runs of the same profile that finished before
 * the deployment took effect (client-saturated runs left out), compared metric by metric. A profile
 * with no such baseline says so; one whose post-deployment runs all failed regressed (the endpoint
 * broke); one whose runs were all aborted (teapot could not run them) is inconclusive.
 */
export async function verifyDeployment(
  db: RunStore,
  deployment: DeploymentToVerify,
  options: VerifyOptions = {},
): Promise<VerificationProgress> {
  const pool = poolOf(db);
  const { rows: runs } = await pool.query<{ id: string; profile_id: string | null; status: RunStatusName }>(
    'SELECT id, profile_id, status::text AS status FROM runs WHERE deployment_id = $1 ORDER BY queued_at, id',
    [deployment.id],
  );
  const unfinished = runs.filter((run) => !isFinalRunStatus(run.status)).length;
  if (unfinished > 0) return { state: 'measuring', unfinishedRuns: unfinished };

  const profiles: ProfileVerification[] = [];
  let confidence = 0.95;
  for (const profileId of deployment.profileIds) {
    const mine = runs.filter((run) => run.profile_id === profileId);
    const candidateRunIds = mine.filter((run) => MEASURED.has(run.status)).map((run) => run.id);
    const { rows: baseline } = await pool.query<{ id: string }>(
      `SELECT id FROM runs
        WHERE profile_id = $1 AND status = 'succeeded' AND finished_at <= $2
          AND NOT COALESCE(client_saturated, false)
        ORDER BY finished_at DESC, id DESC LIMIT $3`,
      [profileId, deployment.effectiveAt, deployment.baselineRuns],
    );
    const baselineRunIds = baseline.map((run) => run.id).reverse();
    const { rows: named } = await pool.query<{ name: string }>('SELECT name FROM profiles WHERE id = $1', [
      profileId,
    ]);
    const base = { profileId, profileName: named[0]?.name ?? null, baselineRunIds, candidateRunIds };
    const statuses = mine.map((run) => run.status);
    if (candidateRunIds.length === 0) {
      const failed = statuses.filter((status) => status === 'failed').length;
      profiles.push({
        ...base,
        metrics: [],
        verdict: failed > 0 ? 'regressed' : 'inconclusive',
        reason:
          failed > 0
            ? `no post-deployment run measured a successful request (${describeStatuses(statuses)})`
            : `no post-deployment run was measured (${describeStatuses(statuses)})`,
      });
      continue;
    }
    if (baselineRunIds.length === 0) {
      profiles.push({
        ...base,
        metrics: [],
        verdict: 'no_baseline',
        reason: `no successful run of this profile finished before the deployment took effect (${deployment.effectiveAt.toISOString()})`,
      });
      continue;
    }
    const comparison = await compare(db, {
      baseline: { runIds: baselineRunIds },
      candidate: { runIds: candidateRunIds },
      statistics: [...DEPLOYMENT_STATISTICS],
      thresholds: Object.fromEntries(
        DEFAULT_COMPARISON_METRICS.filter((metric) => metric !== 'error_rate').map((metric) => [
          metric,
          deployment.threshold,
        ]),
      ),
      ...(options.iterations ? { iterations: options.iterations } : {}),
    });
    confidence = comparison.confidence;
    profiles.push({
      ...base,
      metrics: comparison.metrics.map(toMetricVerification),
      verdict: deploymentVerdictOf(comparison.verdict),
      reason: comparison.reason ?? (comparison.notes.length > 0 ? comparison.notes.join('; ') : null),
    });
  }
  return {
    state: 'done',
    verification: {
      verdict: overallOf(profiles.map((profile) => profile.verdict)),
      threshold: deployment.threshold,
      confidence,
      profiles,
    },
  };
}

function toMetricVerification(row: Comparison['metrics'][number]): MetricVerification {
  const relative = row.threshold.kind === 'relative';
  return {
    metric: row.metric,
    statistic: row.statistic,
    unit: row.unit,
    baseline: row.baseline,
    candidate: row.candidate,
    delta: relative ? row.relativeDelta : row.delta,
    relative,
    interval: relative ? row.relativeCi : row.ci,
    threshold: row.threshold.value,
    verdict: row.verdict,
    ...(row.insufficient ? { insufficient: row.insufficient } : {}),
  };
}

function deploymentVerdictOf(verdict: Verdict): DeploymentVerdictName {
  return verdict === 'unchanged' ? 'verified' : verdict;
}

/**
 * One regressed profile makes the deployment regressed; profiles without a baseline do not count
 * unless no profile had one; then inconclusive, improved, verified in that order.
 */
export function overallOf(verdicts: readonly DeploymentVerdictName[]): DeploymentVerdictName {
  const judged = verdicts.filter((verdict) => verdict !== 'no_baseline');
  if (judged.length === 0) return 'no_baseline';
  if (judged.includes('regressed')) return 'regressed';
  if (judged.includes('inconclusive')) return 'inconclusive';
  return judged.includes('improved') ? 'improved' : 'verified';
}

function describeStatuses(statuses: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count} ${status}`).join(', ') || 'none queued';
}
