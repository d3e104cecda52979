import type { DeploymentView, TeapotApiClient } from './api-client';
import { DEMO_GPU, DEMO_MODEL, redeploySimulator, servingConfigOf, type RegisteredEndpoint } from './demo';
import { LocalWebhookReceiver, type ReceivedWebhook } from './webhook-receiver';

export const DEMO_DEPLOYMENT_LABEL = 'moved llama-8b to FP16 weights, leaving a 2,048-token KV cache';
/**
 * The KV cache the slower deployment leaves, in tokens: the demo's 8 streams of 256 + 128 tokens
 * need 192 blocks of 16 at their longest and get 128, so the engine preempts and recomputes them,
 * which the server's metrics report and the verdict's explanation names.
 */
const DEMO_SMALL_KV_CACHE_TOKENS = 2048;
const POLL_MS = 1_000;

export interface AnnouncedDeployment {
  deployment: DeploymentView;
  /** The signed deployment webhook the local receiver got; null when the verdict announces none. */
  webhook: ReceivedWebhook | null;
}

/**
 * The end of the demo, as a user would do it: subscribe a local receiver to deployment events, make
 * the FP8 endpoint slower (its simulator now serves FP16 weights from a small KV cache), announce that through
 * POST /deployments with the new serving configuration, wait for the verification and for the
 * signed webhook. The subscription is switched off afterwards, since the receiver stops with this.
 */
export async function announceSlowerDeployment(
  api: TeapotApiClient,
  endpoint: RegisteredEndpoint,
  baselineRuns: number,
  say: (text?: string) => void,
  signal: AbortSignal,
): Promise<AnnouncedDeployment> {
  const receiver = await LocalWebhookReceiver.start();
  try {
    const subscription = await api.createSubscription({
      url: receiver.url,
      eventTypes: ['deployment.regressed', 'deployment.verified'],
      endpointId: endpoint.endpointId,
    });
    receiver.secret = subscription.secret;
    say(
      `subscribed the local receiver ${receiver.url} to deployment.regressed and deployment.verified of ${endpoint.name} (POST /webhooks/subscriptions)`,
    );
    try {
      await redeploySimulator(endpoint.baseUrl, { quant: 'fp16', kvCacheTokens: DEMO_SMALL_KV_CACHE_TOKENS });
      const created = await api.createDeployment({
        endpointId: endpoint.endpointId,
        label: DEMO_DEPLOYMENT_LABEL,
        version: 'teapot-sim-0.1.0-fp16',
        config: {
          ...servingConfigOf('fp16'),
          extra: {
            simulator: {
              gpu: DEMO_GPU,
              model: DEMO_MODEL,
              quant: 'fp16',
              kvCacheTokens: DEMO_SMALL_KV_CACHE_TOKENS,
            },
          },
          note: 'teapot stack demo: a deployment that makes it slower',
        },
        settings: {
          // The scheduled profile only: a capacity search of the endpoint would take minutes a round.
          profileIds: [endpoint.profileId],
          runsPerProfile: 3,
          firstRunDelayS: 0,
          baselineRuns,
          threshold: 0.1,
          // The simulators, the API and the workers share this machine's cores with the client.
          includeSaturated: true,
        },
      });
      say(
        `deployment ${created.id} on ${endpoint.name}: its simulator now serves FP16 weights with a ${DEMO_SMALL_KV_CACHE_TOKENS}-token KV cache; ` +
          `${created.runs.length} post-deployment runs queued, compared with the last ${baselineRuns} runs before it (POST /deployments)...`,
      );
      const deployment = await waitForVerdict(api, created.id, signal, POLL_MS);
      const decided = (deployment.verification?.profiles ?? []).flatMap((p) => p.decidedBy);
      say(
        `verification: ${deployment.verdict}${decided.length > 0 ? ` (decided by ${decided.join(', ')})` : ''}` +
          (deployment.verification?.profiles.some((p) => p.reason)
            ? `; ${deployment.verification.profiles.flatMap((p) => (p.reason ? [p.reason] : [])).join('; ')}`
            : ''),
      );
      const type =
        deployment.verdict === 'regressed'
          ? 'deployment.regressed'
          : deployment.verdict === 'verified' || deployment.verdict === 'improved'
            ? 'deployment.verified'
            : null;
      const webhook = type
        ? await receiver.next(
            (w) =>
              w.body?.type === type &&
              (w.body.data.deployment as { id?: string } | undefined)?.id === deployment.id,
            signal,
          )
        : null;
      return { deployment, webhook };
    } finally {
      await api.updateSubscription(subscription.id, { active: false }).catch(() => undefined);
    }
  } finally {
    await receiver.close();
  }
}

/** Polls GET /deployments/{id} until its verdict is no longer pending, or `signal` aborts. */
export async function waitForVerdict(
  api: TeapotApiClient,
  id: string,
  signal: AbortSignal,
  pollMs: number,
): Promise<DeploymentView> {
  for (;;) {
    const deployment = await api.deployment(id);
    if (deployment.verdict !== 'pending') return deployment;
    if (signal.aborted)
      throw new Error(
        `deployment ${id} was not verified in time (its runs: ${deployment.runs.map((r) => r.status).join(', ')})`,
      );
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
