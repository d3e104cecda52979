import type { MetricVerification } from '@teapot/contracts';
import type { TeapotApiClient } from './api-client';
import { waitForVerdict } from './deployment-demo';
import { DEMO_MODEL, profileOf, redeploySimulator, servingConfigOf, type DemoQuant } from './demo';
import type { LocalWebhookReceiver } from './webhook-receiver';

/**
 * Repeated deployments against two simulated endpoints, through the REST API, the worker processes
 * and a local receiver that verifies every signature: how often a slower configuration is caught
 * and how often an unchanged one raises a false alarm. `npm run bench:deployments` runs 20 rounds
 * (apps/stack/bench) and prints both rates.
 */
export interface RoundsSetup {
  api: TeapotApiClient;
  receiver: LocalWebhookReceiver;
  /** Serves FP16 throughout: its deployments change nothing. */
  steadyBaseUrl: string;
  /** Serves FP8, switched to FP16 (slower) and back by each round. */
  togglingBaseUrl: string;
}

export interface RoundsOptions {
  rounds: number;
  /** The deployments' minimum relative effect (settings.threshold). */
  threshold: number;
  runsPerProfile: number;
  /** Per deployment, from POST to the verdict and its webhook. */
  timeoutMs: number;
  signal: AbortSignal;
  progress?: (line: string) => void;
}

export type DeploymentKind = 'initial' | 'unchanged' | 'slower' | 'faster';

export interface DeploymentOutcome {
  kind: DeploymentKind;
  round: number;
  id: string;
  verdict: string;
  /** The judged rows that decided it. */
  decidedBy: string[];
  /** Time from POST /deployments to the verdict. */
  verifiedInMs: number;
  /** Why, when no judged row decided it (no baseline, nothing measured...). */
  reasons: string[];
  /** The deciding rows' relative change and interval, e.g. "itl.p99 +31% [+12%, +55%]". */
  figures: string[];
}

export interface WebhookTally {
  /** Signed deliveries of deployment.regressed for the deployment, and how many verified. */
  regressed: number;
  verified: number;
  /** Deliveries whose signature did not verify. */
  badSignatures: number;
}

export interface RoundsResult {
  outcomes: Array<DeploymentOutcome & { webhooks: WebhookTally }>;
  slower: { deployments: number; caught: number; caughtWithOneSignedWebhook: number };
  unchanged: { deployments: number; falseAlarms: number; verified: number; withVerifiedWebhook: number };
  faster: { deployments: number; improved: number };
}

/** The closed-loop profile every round measures: 48 requests of 16 tokens, about a second per run. */
export const ROUNDS_PROFILE = {
  ...profileOf(1),
  name: 'deployment-rounds',
  workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 16 },
  load: { kind: 'closed', concurrency: 4 },
  requestCount: 48,
  // Only the deployments run it.
  scheduleIntervalS: null,
};

const POLL_MS = 250;

export async function runDeploymentRounds(setup: RoundsSetup, options: RoundsOptions): Promise<RoundsResult> {
  const { api, receiver } = setup;
  const say = options.progress ?? (() => undefined);
  const suffix = `${process.pid}-${Date.now()}`;
  const register = async (name: string, baseUrl: string, quant: DemoQuant) => {
    const endpoint = await api.createEndpoint({
      name: `${name}-${suffix}`,
      baseUrl,
      apiKind: 'chat',
      model: DEMO_MODEL,
      config: servingConfigOf(quant),
    });
    const profile = await api.createProfile({ ...ROUNDS_PROFILE, endpointId: endpoint.id });
    return { endpointId: endpoint.id, profileId: profile.id };
  };
  const steady = await register('rounds-steady', setup.steadyBaseUrl, 'fp16');
  const toggling = await register('rounds-toggling', setup.togglingBaseUrl, 'fp8');
  const subscription = await api.createSubscription({
    url: receiver.url,
    eventTypes: ['deployment.regressed', 'deployment.verified'],
  });
  receiver.secret = subscription.secret;

  const outcomes: DeploymentOutcome[] = [];
  const deploy = async (
    kind: DeploymentKind,
    round: number,
    endpointId: string,
    config?: Record<string, unknown>,
  ): Promise<DeploymentOutcome> => {
    const started = Date.now();
    const created = await api.createDeployment({
      endpointId,
      label: `${kind} #${round}`,
      ...(config ? { config } : {}),
      settings: {
        runsPerProfile: options.runsPerProfile,
        firstRunDelayS: 0,
        baselineRuns: options.runsPerProfile,
        threshold: options.threshold,
        // The simulators, the API and every worker share this machine's cores with the client.
        includeSaturated: true,
      },
    });
    const done = await waitForVerdict(
      api,
      created.id,
      AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
      POLL_MS,
    );
    const outcome: DeploymentOutcome = {
      kind,
      round,
      id: done.id,
      verdict: done.verdict,
      decidedBy: (done.verification?.profiles ?? []).flatMap((profile) => profile.decidedBy ?? []),
      verifiedInMs: Date.now() - started,
      reasons: (done.verification?.profiles ?? []).flatMap((profile) =>
        profile.reason ? [profile.reason] : [],
      ),
      figures: (done.verification?.profiles ?? []).flatMap((profile) =>
        profile.metrics
          .filter((row) => profile.decidedBy.includes(`${row.metric}.${row.statistic}`))
          .map((row) => `${row.metric}.${row.statistic} ${describeChange(row)}`),
      ),
    };
    // An announced verdict is awaited too, so the next deployment's baseline and webhooks are settled.
    const announced = {
      regressed: 'deployment.regressed',
      verified: 'deployment.verified',
      improved: 'deployment.verified',
    }[done.verdict];
    if (announced)
      await withTimeout(
        (signal) => receiver.next((w) => w.body?.type === announced && deploymentIdOf(w) === done.id, signal),
        options.timeoutMs,
        options.signal,
        `the ${announced} webhook of deployment ${done.id}`,
      );
    outcomes.push(outcome);
    say(
      `  ${kind.padEnd(9)} #${String(round).padStart(2)}: ${outcome.verdict.padEnd(12)} in ${(outcome.verifiedInMs / 1000).toFixed(1)} s` +
        (outcome.figures.length > 0 ? ` (${outcome.figures.join(', ')})` : '') +
        (outcome.reasons.length > 0 ? `: ${outcome.reasons.join('; ')}` : ''),
    );
    return outcome;
  };

  // The first deployment of each endpoint has no baseline; its runs are the next one's.
  await Promise.all([deploy('initial', 0, steady.endpointId), deploy('initial', 0, toggling.endpointId)]);
  for (let round = 1; round <= options.rounds; round++) {
    if (options.signal.aborted) throw new Error('stopped');
    await Promise.all([
      deploy('unchanged', round, steady.endpointId),
      (async () => {
        await redeploySimulator(setup.togglingBaseUrl, { quant: 'fp16' });
        await deploy('slower', round, toggling.endpointId, servingConfigOf('fp16'));
        await redeploySimulator(setup.togglingBaseUrl, { quant: 'fp8' });
        await deploy('faster', round, toggling.endpointId, servingConfigOf('fp8'));
      })(),
    ]);
  }

  const tallied = outcomes.map((outcome) => ({ ...outcome, webhooks: tally(receiver, outcome.id) }));
  const of = (kind: DeploymentKind) => tallied.filter((outcome) => outcome.kind === kind);
  // The verdict reached the receiver as it should: exactly one webhook of it, none badly signed.
  const announcedOnce = (outcome: (typeof tallied)[number], verdict: 'regressed' | 'verified') =>
    outcome.verdict === verdict && outcome.webhooks[verdict] === 1 && outcome.webhooks.badSignatures === 0;
  return {
    outcomes: tallied,
    slower: {
      deployments: of('slower').length,
      caught: of('slower').filter((o) => o.verdict === 'regressed').length,
      caughtWithOneSignedWebhook: of('slower').filter((o) => announcedOnce(o, 'regressed')).length,
    },
    unchanged: {
      deployments: of('unchanged').length,
      falseAlarms: of('unchanged').filter((o) => o.verdict === 'regressed' || o.webhooks.regressed > 0)
        .length,
      verified: of('unchanged').filter((o) => o.verdict === 'verified').length,
      withVerifiedWebhook: of('unchanged').filter((o) => announcedOnce(o, 'verified')).length,
    },
    faster: {
      deployments: of('faster').length,
      improved: of('faster').filter((o) => o.verdict === 'improved').length,
    },
  };
}

/** Both rates in words, with the settings that gave them. */
export function describeRounds(
  result: RoundsResult,
  options: Pick<RoundsOptions, 'threshold' | 'runsPerProfile'>,
): string {
  const { slower, unchanged, faster } = result;
  return [
    `slower (FP8 -> FP16) caught: ${slower.caught}/${slower.deployments} ` +
      `(${slower.caughtWithOneSignedWebhook} with exactly one signed deployment.regressed webhook)`,
    `unchanged raising a false alarm: ${unchanged.falseAlarms}/${unchanged.deployments} ` +
      `(verified: ${unchanged.verified}, with its signed deployment.verified webhook: ${unchanged.withVerifiedWebhook})`,
    `faster (FP16 -> FP8) improved: ${faster.improved}/${faster.deployments}`,
    `settings: minimum effect ${options.threshold}, ${options.runsPerProfile} runs a side of ` +
      `${ROUNDS_PROFILE.requestCount} requests x ${ROUNDS_PROFILE.workload.outputTokens} tokens at concurrency ${ROUNDS_PROFILE.load.concurrency}`,
  ].join('\n');
}

function describeChange(row: MetricVerification): string {
  const percent = (x: number | null) => (x === null ? '?' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`);
  const shown = (x: number | null) => (row.relative ? percent(x) : (x ?? NaN).toFixed(3));
  const interval = row.verdict === 'unchanged' ? row.equivalenceInterval : row.interval;
  return `${shown(row.delta)}${interval ? ` [${shown(interval[0])}, ${shown(interval[1])}]` : ''}`;
}

function tally(receiver: LocalWebhookReceiver, deploymentId: string): WebhookTally {
  const mine = receiver.received.filter((w) => deploymentIdOf(w) === deploymentId);
  return {
    regressed: mine.filter((w) => w.signatureOk && w.body?.type === 'deployment.regressed').length,
    verified: mine.filter((w) => w.signatureOk && w.body?.type === 'deployment.verified').length,
    badSignatures: mine.filter((w) => !w.signatureOk).length,
  };
}

function deploymentIdOf(webhook: { body: { data: Record<string, unknown> } | null }): string | undefined {
  return (webhook.body?.data.deployment as { id?: string } | undefined)?.id;
}

async function withTimeout<T>(
  work: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  outer: AbortSignal,
  what: string,
): Promise<T> {
  const signal = AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]);
  try {
    return await work(signal);
  } catch (error) {
    if (signal.aborted && !outer.aborted) throw new Error(`${what} did not arrive within ${timeoutMs} ms`);
    throw error;
  }
}
