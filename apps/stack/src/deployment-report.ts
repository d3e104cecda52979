import type { MetricVerification } from '@teapot/contracts';
import { metricLabel, percent } from './report';
import type { ReceivedWebhook } from './webhook-receiver';

// What the demo prints about its deployment: the verdict's webhook as the local receiver got it.

/** The judged rows of a deployment webhook's body, as its `data.profiles[].metrics` carry them. */
type WebhookMetricRow = Pick<
  MetricVerification,
  'metric' | 'statistic' | 'unit' | 'baseline' | 'candidate' | 'delta' | 'relative' | 'interval' | 'verdict'
>;

/** What the demo says when its deployment's verdict (inconclusive, failed) announces no webhook. */
export function renderUnannouncedVerdict(deployment: { id: string; verdict: string }): string {
  return (
    `\nThe deployment ${deployment.id} was ${deployment.verdict}, which announces no webhook ` +
    `(only regressed, verified and improved do): GET /deployments/${deployment.id} says why.`
  );
}

/**
 * A deployment webhook as the local receiver got it: its id, whether its signature verified, the
 * deployment and, per profile, the judged rows (the ones that decided the verdict marked with *).
 */
export function renderDeploymentWebhook(webhook: ReceivedWebhook): string {
  const data = (webhook.body?.data ?? {}) as {
    deployment?: { id?: string; label?: string; version?: string | null };
    verdict?: string;
    confidence?: number;
    profiles?: Array<{
      profileName?: string | null;
      baselineRuns?: number;
      candidateRuns?: number;
      decidedBy?: string[];
      metrics?: WebhookMetricRow[];
      explanations?: string[];
    }>;
  };
  const signature = webhook.signatureOk
    ? `OK (verified with the subscription's secret by verify() from @teapot/webhooks)`
    : `NOT VERIFIED: ${webhook.error ?? 'unknown'}`;
  const lines = [
    `  webhook-id   ${webhook.id}`,
    `  type         ${webhook.body?.type ?? '(not JSON)'}`,
    `  signature    ${signature}`,
    `  deployment   ${data.deployment?.label ?? '?'}${data.deployment?.version ? ` (${data.deployment.version})` : ''}, ${data.deployment?.id ?? '?'}: ${data.verdict ?? '?'}`,
  ];
  const level = data.confidence ? `${(data.confidence * 100).toFixed(1)}% interval` : 'interval';
  for (const profile of data.profiles ?? []) {
    lines.push(
      `  profile ${profile.profileName ?? '?'}: ${profile.candidateRuns ?? '?'} runs after against ${profile.baselineRuns ?? '?'} before (* decided the verdict)`,
    );
    const rows = (profile.metrics ?? []).map((m) => {
      const name = `${m.unit === 'ms' ? `${m.statistic.toUpperCase()} ` : ''}${metricLabel(m.metric)}`;
      const value = (v: number | null) => (v === null ? '-' : v.toFixed(m.unit === 'fraction' ? 3 : 2));
      const change = (v: number | null) => (v === null ? '-' : m.relative ? percent(v) : v.toFixed(3));
      return [
        `${profile.decidedBy?.includes(`${m.metric}.${m.statistic}`) ? '*' : ' '} ${name}`,
        m.unit,
        `${value(m.baseline)} -> ${value(m.candidate)}`,
        change(m.delta),
        m.interval ? `[${change(m.interval[0])}, ${change(m.interval[1])}]` : '-',
        m.verdict,
      ];
    });
    const header = ['', 'unit', 'before -> after', 'change', level, 'verdict'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const cells of [header, ...rows])
      lines.push(
        `    ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}`.trimEnd(),
      );
    // What the server's metrics and the per-token record say changed with it.
    if (profile.explanations?.length) lines.push(`    why: ${profile.explanations.join('; ')}`);
  }
  return lines.join('\n') + '\n';
}
