import type { DeploymentVerification } from '@teapot/contracts';
import type { Deployment, WebhookEventInput } from '@teapot/db';

/**
 * The webhook event of a verified deployment: `deployment.regressed` when it regressed,
 * `deployment.verified` when it was verified or improved; none for inconclusive or no baseline
 * (there is nothing to announce yet, and the deployment's API resource says why).
 */
export function deploymentEvent(
  deployment: Deployment,
  verification: DeploymentVerification,
): WebhookEventInput | null {
  const { verdict } = verification;
  if (verdict !== 'regressed' && verdict !== 'verified' && verdict !== 'improved') return null;
  return {
    type: verdict === 'regressed' ? 'deployment.regressed' : 'deployment.verified',
    endpointId: deployment.endpointId,
    data: {
      deployment: {
        id: deployment.id,
        label: deployment.label,
        version: deployment.version,
        effectiveAt: deployment.effectiveAt.toISOString(),
        configId: deployment.configId,
      },
      verdict,
      threshold: verification.threshold,
      confidence: verification.confidence,
      method: verification.method,
      // The judged rows with an interval only, so the body stays a few KB; the API resource has every row.
      profiles: verification.profiles.map((profile) => ({
        profileId: profile.profileId,
        profileName: profile.profileName,
        verdict: profile.verdict,
        reason: profile.reason,
        baselineRuns: profile.baselineRunIds.length,
        candidateRuns: profile.candidateRunIds.length,
        // what a chat message or a PR comment links to: the dashboard's comparison of these runs
        baselineRunIds: profile.baselineRunIds,
        candidateRunIds: profile.candidateRunIds,
        ...(profile.candidateSweepIds
          ? {
              baselineSweeps: profile.baselineSweepIds?.length ?? 0,
              candidateSweeps: profile.candidateSweepIds.length,
            }
          : {}),
        decidedBy: profile.decidedBy,
        // the diagnostics that changed, as one sentence each ("preemptions 0 -> 37 per run")
        explanations: (profile.explanations ?? []).map((change) => change.text),
        metrics: profile.metrics
          .filter((metric) => metric.judged && !metric.insufficient)
          .map(({ metric, statistic, unit, baseline, candidate, delta, relative, interval, verdict }) => ({
            metric,
            statistic,
            unit,
            baseline,
            candidate,
            delta,
            relative,
            interval,
            verdict,
          })),
      })),
    },
    links: {
      deployment: `/deployments/${deployment.id}`,
      endpoint: `/endpoints/${deployment.endpointId}`,
      runs: `/runs?endpointId=${deployment.endpointId}`,
    },
  };
}
