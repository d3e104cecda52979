import {
  sweepMetricUnit,
  type MetricVerdictName,
  type MetricVerification,
  type ProfileVerification,
  type SweepMetricName,
} from '@teapot/contracts';
import type { AnalysisStores, DeploymentSweep, SeriesSweep } from '@teapot/db';
import { welchOnLogs } from '@teapot/stats';
import { compareSweepValues } from '../sweep-comparison';
import type { DeploymentToVerify } from './verify';

/** One judged row (capacity), so no correction: a change is called on a 95% interval. */
const CHANGE_CONFIDENCE = 0.95;
/** No change is called when the 90% interval lies within +-threshold (two one-sided tests at 5%). */
const EQUIVALENCE_CONFIDENCE = 0.9;
const EVER = { from: new Date(0), to: new Date(8.64e15) };

export type SweepVerificationStores = Pick<AnalysisStores, 'deployments' | 'sweeps'>;

/**
 * A sweep profile's verdict: the capacity at SLO of the capacity searches the deployment queued
 * against the profile's last `baselineRuns` searches finished before it took effect. Capacity is the
 * judged row (a drop beyond the threshold, shown by its whole interval, is a regression); the cost
 * per million tokens at capacity is shown beside it when both sides have a price.
 */
export async function verifySweepProfile(
  stores: SweepVerificationStores,
  deployment: DeploymentToVerify,
  base: Pick<ProfileVerification, 'profileId' | 'profileName'>,
  queued: readonly DeploymentSweep[],
): Promise<ProfileVerification> {
  const candidateSweepIds = queued.filter((sweep) => sweep.status === 'succeeded').map((sweep) => sweep.id);
  const baselineSweepIds = await stores.deployments.baselineSweepIds({
    profileId: base.profileId,
    before: deployment.effectiveAt,
    runs: deployment.baselineRuns,
  });
  const shell = {
    ...base,
    baselineRunIds: [],
    candidateRunIds: [],
    baselineSweepIds,
    candidateSweepIds,
    decidedBy: [],
    metrics: [],
  };
  if (candidateSweepIds.length === 0) {
    const failed = queued.filter((sweep) => sweep.status === 'failed').length;
    return {
      ...shell,
      verdict: failed > 0 ? 'regressed' : 'inconclusive',
      reason:
        failed > 0
          ? `no post-deployment capacity search finished: ${failed} of ${queued.length} failed (the endpoint failed)`
          : `no post-deployment capacity search finished (${queued.length} aborted)`,
    };
  }
  if (baselineSweepIds.length === 0) {
    return {
      ...shell,
      verdict: 'no_baseline',
      reason: `no capacity search of this profile finished before the deployment took effect (${deployment.effectiveAt.toISOString()})`,
    };
  }
  const [baseline, candidate] = await Promise.all(
    [baselineSweepIds, candidateSweepIds].map((sweepIds) =>
      stores.sweeps.capacitySearches({ ...EVER, sweepIds }, sweepIds.length),
    ),
  );
  const capacity = sweepRowVerification('capacity', baseline, candidate, deployment.threshold);
  const cost = sweepRowVerification('cost_per_mtok', baseline, candidate, deployment.threshold);
  const metrics = [
    capacity.row,
    ...(cost.row.baseline !== null && cost.row.candidate !== null ? [{ ...cost.row, judged: false }] : []),
  ];
  const verdict = capacity.row.verdict;
  return {
    ...shell,
    metrics,
    verdict: verdict === 'unchanged' ? 'verified' : verdict,
    decidedBy: verdict === 'inconclusive' ? [] : ['capacity.mean'],
    reason:
      capacity.reason ??
      (verdict === 'inconclusive'
        ? `capacity neither moved beyond ${deployment.threshold * 100}% nor stayed provably within it: raise runsPerProfile or baselineRuns`
        : null),
  };
}

/** A sweep metric's row in a deployment's terms (geometric mean, relative change, both intervals), pure. */
export function sweepRowVerification(
  metric: SweepMetricName,
  baseline: readonly SeriesSweep[],
  candidate: readonly SeriesSweep[],
  threshold: number,
): { row: MetricVerification; reason: string | null } {
  const compared = compareSweepValues(metric, baseline, candidate, {
    threshold,
    confidence: CHANGE_CONFIDENCE,
  });
  const equivalence = welchOnLogs(
    compared.baseline.values,
    compared.candidate.values,
    EQUIVALENCE_CONFIDENCE,
  );
  const interval = compared.changeCi;
  let verdict: MetricVerdictName = 'inconclusive';
  if (compared.reason && compared.verdict !== 'inconclusive') verdict = compared.verdict;
  else if (interval && interval[1] < -threshold) verdict = metric === 'capacity' ? 'regressed' : 'improved';
  else if (interval && interval[0] > threshold) verdict = metric === 'capacity' ? 'improved' : 'regressed';
  else if (equivalence && equivalence.changeCi[0] >= -threshold && equivalence.changeCi[1] <= threshold)
    verdict = 'unchanged';
  const dimension = [...baseline, ...candidate][0]?.dimension ?? 'rate';
  return {
    row: {
      metric,
      statistic: 'mean',
      unit: sweepMetricUnit(metric, dimension),
      baseline: compared.baseline.centre,
      candidate: compared.candidate.centre,
      delta: compared.change,
      relative: true,
      interval,
      equivalenceInterval: equivalence?.changeCi ?? null,
      threshold,
      verdict,
      judged: true,
    },
    reason: compared.reason && compared.judged !== false ? compared.reason : null,
  };
}
