import {
  isFinalRunStatus,
  type DeploymentVerdictName,
  type DeploymentVerification,
  type MetricVerification,
  type ProfileVerification,
  type RunStatusName,
  type VerificationMethod,
  UNFINISHED_SWEEP_STATUSES,
} from '@teapot/contracts';
import type { AnalysisStores } from '@teapot/db';
import { compare, type Comparison } from '../comparisons/compare';
import { checkComparisonQuery, DEFAULT_COMPARISON_METRICS } from '../comparisons/comparison-query';
import { loadComparison, type ComparisonStores, type LoadedComparison } from '../comparisons/load-comparison';
import type { Verdict } from '../comparisons/verdict';
import { verifySweepProfile } from './verify-sweeps';

/** The deployment row fields a verification reads. */
export interface DeploymentToVerify {
  id: string;
  effectiveAt: Date;
  profileIds: string[];
  /** K: the last K successful runs of each profile before effectiveAt. */
  baselineRuns: number;
  /** Relative change that matters, for every metric but the error rate (absolute, compare's default). */
  threshold: number;
  /** Count client-saturated runs on both sides (left out otherwise). */
  includeSaturated: boolean;
}

export type VerificationProgress =
  { state: 'measuring'; unfinishedRuns: number } | { state: 'done'; verification: DeploymentVerification };

export type VerificationStores = ComparisonStores & Pick<AnalysisStores, 'deployments' | 'sweeps'>;

export interface VerifyOptions {
  /** Bootstrap iterations (compare's default otherwise). */
  iterations?: number;
}

/** Statistics compared per distribution metric; compare leaves out a tail its samples cannot support. */
export const DEPLOYMENT_STATISTICS = ['p50', 'mean', 'p90', 'p99'] as const;

/**
 * The rows a deployment is judged on: the figures a serving team watches after a change (the time
 * per output token, typical and tail inter-token gaps, the typical time to first token, throughput,
 * errors). Every other row (P90s, E2E, requests/s...) is computed and shown, never counted: the more
 * rows a verdict rests on, the likelier one of them moves by chance.
 */
export const JUDGED_ROWS: readonly string[] = [
  'tpot.p50',
  'tpot.mean',
  'itl.p50',
  'itl.p99',
  'ttft.p50',
  'output_tokens_per_s.mean',
  'error_rate.mean',
];

/**
 * At most this chance that sampling noise alone calls a judged row of an unchanged profile changed.
 * Bonferroni over the judged rows: each row's interval is at 1 - FAMILY_ALPHA / JUDGED_ROWS.length,
 * so the stored intervals are the ones the verdict rests on (Holm's step-down would be a little
 * more powerful, but it needs per-row p-values, not intervals, to decide and to show).
 */
export const FAMILY_ALPHA = 0.05;
export const VERIFICATION_CONFIDENCE = 1 - FAMILY_ALPHA / JUDGED_ROWS.length;
/**
 * "Nothing moved" is the opposite claim: every judged row within +-threshold. Each row is a two
 * one-sided test at FAMILY_ALPHA (its 1 - 2 alpha interval inside the bounds), and the claim holds
 * only if every row's does (an intersection-union test), which errs at most alpha with no correction.
 */
export const EQUIVALENCE_CONFIDENCE = 1 - 2 * FAMILY_ALPHA;

/**
 * Judged rows that can make a deployment regressed or improved but need not be shown unchanged for
 * it to be verified: a P99 over a few runs moves by tens of percent from run to run on a shared
 * machine (timer and scheduler lateness land in the tail), so its interval rarely fits inside the
 * threshold even when nothing changed. Such a row left inconclusive is said in `reason`.
 */
export const CHANGE_ONLY_ROWS: readonly string[] = ['itl.p99'];
const MEASURED = new Set<RunStatusName>(['succeeded', 'partial']);

/**
 * The verification of a deployment once every run it queued is final: per profile, its measured
 * post-deployment runs against the last K successful runs of the same profile that finished before
 * the deployment took effect (client-saturated runs left out), compared metric by metric. A profile
 * with no such baseline says so; one whose post-deployment runs all failed regressed (the endpoint
 * broke); one whose runs were all aborted (teapot could not run them) is inconclusive.
 */
export async function verifyDeployment(
  stores: VerificationStores,
  deployment: DeploymentToVerify,
  options: VerifyOptions = {},
): Promise<VerificationProgress> {
  const runs = await stores.deployments.runsOf(deployment.id);
  const sweeps = await stores.deployments.sweepsOf(deployment.id);
  const unfinished =
    runs.filter((run) => !isFinalRunStatus(run.status)).length +
    sweeps.filter((sweep) => (UNFINISHED_SWEEP_STATUSES as readonly string[]).includes(sweep.status)).length;
  if (unfinished > 0) return { state: 'measuring', unfinishedRuns: unfinished };

  const profiles: ProfileVerification[] = [];
  for (const profileId of deployment.profileIds) {
    const mySweeps = sweeps.filter((sweep) => sweep.profileId === profileId);
    if (mySweeps.length > 0) {
      const named = { profileId, profileName: await stores.profiles.nameOf(profileId) };
      profiles.push(await verifySweepProfile(stores, deployment, named, mySweeps));
      continue;
    }
    const mine = runs.filter((run) => run.profileId === profileId);
    const candidateRunIds = mine.filter((run) => MEASURED.has(run.status)).map((run) => run.id);
    const baselineRunIds = await stores.deployments.baselineRunIds({
      profileId,
      before: deployment.effectiveAt,
      runs: deployment.baselineRuns,
      includeSaturated: deployment.includeSaturated,
    });
    const base = {
      profileId,
      profileName: await stores.profiles.nameOf(profileId),
      baselineRunIds,
      candidateRunIds,
      decidedBy: [] as string[],
    };
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
        reason:
          `no successful run of this profile finished before the deployment took effect (${deployment.effectiveAt.toISOString()})` +
          (deployment.includeSaturated
            ? ''
            : '; client-saturated runs are left out unless settings.includeSaturated'),
      });
      continue;
    }
    const query = {
      baseline: { runIds: baselineRunIds, includeSaturated: deployment.includeSaturated },
      candidate: { runIds: candidateRunIds, includeSaturated: deployment.includeSaturated },
      statistics: [...DEPLOYMENT_STATISTICS],
      thresholds: Object.fromEntries(
        DEFAULT_COMPARISON_METRICS.filter((metric) => metric !== 'error_rate').map((metric) => [
          metric,
          deployment.threshold,
        ]),
      ),
      ...(options.iterations ? { iterations: options.iterations } : {}),
    };
    const checked = checkComparisonQuery({ ...query, confidence: VERIFICATION_CONFIDENCE });
    profiles.push({ ...base, ...judgedProfile(await loadComparison(stores, checked)) });
  }
  return {
    state: 'done',
    verification: {
      verdict: overallOf(profiles.map((profile) => profile.verdict)),
      threshold: deployment.threshold,
      confidence: VERIFICATION_CONFIDENCE,
      equivalenceConfidence: EQUIVALENCE_CONFIDENCE,
      method: verificationMethod(deployment.threshold),
      profiles,
    },
  };
}

/**
 * A profile's verdict from its loaded sides, compared twice over the same data and seeded resamples:
 * at VERIFICATION_CONFIDENCE to call a change, at EQUIVALENCE_CONFIDENCE to call no change.
 */
function judgedProfile(
  loaded: LoadedComparison,
): Pick<ProfileVerification, 'decidedBy' | 'metrics' | 'verdict' | 'reason' | 'explanations'> {
  const { baseline, candidate, options } = loaded;
  const comparison = compare(baseline, candidate, { ...options, confidence: VERIFICATION_CONFIDENCE });
  const equivalence = compare(baseline, candidate, { ...options, confidence: EQUIVALENCE_CONFIDENCE });
  const metrics = comparison.metrics.map((row, i) => toMetricVerification(row, equivalence.metrics[i]));
  const judged = metrics.filter((row) => row.judged && !row.insufficient);
  const verdict = profileVerdictOf(judged);
  const decidedBy = judged
    .filter((row) => (verdict === 'unchanged' ? row.verdict === 'unchanged' : row.verdict === verdict))
    .map(rowName);
  const unresolved = judged.filter((row) => verdict === 'unchanged' && row.verdict === 'inconclusive');
  const unjudged = metrics.filter((row) => row.judged && row.insufficient);
  const reasons = [
    ...(comparison.reason ? [comparison.reason] : []),
    ...(judged.length === 0 && !comparison.reason
      ? [
          `no judged row had enough data (${unjudged.map((row) => `${rowName(row)}: ${row.insufficient}`).join('; ')}): raise the profile's requestCount or runsPerProfile`,
        ]
      : []),
    ...unresolved.map(
      (row) =>
        `${rowName(row)} neither moved beyond the threshold nor stayed provably within it (its runs spread too much); it does not hold up verification`,
    ),
    ...comparison.notes,
  ];
  return {
    decidedBy,
    metrics,
    verdict: deploymentVerdictOf(verdict),
    reason: reasons.length > 0 ? reasons.join('; ') : null,
    explanations: comparison.explanations,
  };
}

export function verificationMethod(minimumEffect: number): VerificationMethod {
  return {
    judgedRows: [...JUDGED_ROWS],
    changeOnlyRows: [...CHANGE_ONLY_ROWS],
    familyAlpha: FAMILY_ALPHA,
    correction: 'bonferroni',
    minimumEffect,
  };
}

/**
 * Regressed when any judged row regressed; improved when any improved and none regressed; unchanged
 * (verified) when every judged row is shown unchanged, CHANGE_ONLY_ROWS excepted; else inconclusive.
 */
export function profileVerdictOf(
  rows: ReadonlyArray<Pick<MetricVerification, 'metric' | 'statistic' | 'verdict'>>,
): Verdict {
  if (rows.length === 0) return 'inconclusive';
  if (rows.some((row) => row.verdict === 'regressed')) return 'regressed';
  if (rows.some((row) => row.verdict === 'improved')) return 'improved';
  const unresolved = rows.filter(
    (row) => row.verdict !== 'unchanged' && !CHANGE_ONLY_ROWS.includes(rowName(row)),
  );
  return unresolved.length === 0 && rows.some((row) => row.verdict === 'unchanged')
    ? 'unchanged'
    : 'inconclusive';
}

function rowName(row: Pick<MetricVerification, 'metric' | 'statistic'>): string {
  return `${row.metric}.${row.statistic}`;
}

/**
 * A row's verdict from both intervals: regressed (improved) when the whole corrected interval lies
 * beyond the threshold on the worse (better) side, so the change is shown to exceed the minimum
 * effect, not merely to exist; unchanged when the equivalence interval lies within +-threshold;
 * inconclusive otherwise.
 */
function toMetricVerification(
  row: Comparison['metrics'][number],
  equivalence: Comparison['metrics'][number],
): MetricVerification {
  const relative = row.threshold.kind === 'relative';
  const verdict =
    changeBeyond(row) ??
    (equivalence.verdict === 'unchanged' && !row.insufficient ? 'unchanged' : 'inconclusive');
  return {
    metric: row.metric,
    statistic: row.statistic,
    unit: row.unit,
    baseline: row.baseline,
    candidate: row.candidate,
    delta: relative ? row.relativeDelta : row.delta,
    relative,
    interval: relative ? row.relativeCi : row.ci,
    equivalenceInterval: relative ? equivalence.relativeCi : equivalence.ci,
    threshold: row.threshold.value,
    verdict,
    judged: JUDGED_ROWS.includes(`${row.metric}.${row.statistic}`),
    ...(row.insufficient ? { insufficient: row.insufficient } : {}),
  };
}

/** regressed or improved when the row's whole interval lies beyond its threshold; null otherwise. */
function changeBeyond(row: Comparison['metrics'][number]): 'regressed' | 'improved' | null {
  const interval = row.threshold.kind === 'relative' ? row.relativeCi : row.ci;
  if (!interval || row.insufficient || !interval.every(Number.isFinite)) return null;
  const worse = row.direction === 'lower-is-better' ? 1 : -1;
  const [a, b] = interval.map((bound) => worse * bound);
  if (Math.min(a, b) > row.threshold.value) return 'regressed';
  if (Math.max(a, b) < -row.threshold.value) return 'improved';
  return null;
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
