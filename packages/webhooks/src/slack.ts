import {
  formatBeforeAfter,
  formatChange,
  formatInterval,
  rowName,
  VERDICT_EMOJI,
  type DeploymentVerdictName,
  type VerificationRowFigures,
} from '@teapot/contracts';
import type { StoredEvent } from './body';
import {
  buttons,
  context,
  escapeMrkdwn,
  fields,
  header,
  listSection,
  message,
  section,
  type SlackBlock,
  type SlackMessage,
} from './slack-blocks';

/**
 * How much a message lists: rows per profile, profiles per deployment, series per change point; the
 * rest are counted (`+N more`). Chosen so a full deployment message stays within SLACK_LIMITS.
 */
export const SLACK_LISTS = { rowsPerProfile: 12, profiles: 8, changePoints: 12 } as const;

/**
 * A Slack incoming-webhook message (Block Kit) for an event, its links pointing at the dashboard
 * the API serves at `publicUrl`'s `/`. Every event type renders, so a Slack subscription never
 * receives a body Slack would refuse; the limits are kept by the builders of `slack-blocks.ts`.
 */
export function renderSlackMessage(event: StoredEvent, publicUrl: string): SlackMessage {
  const dashboard = `${publicUrl.replace(/\/+$/, '')}/#`;
  const endpoint = event.endpoint?.name ?? 'an endpoint';
  const links: Array<[string, string]> = event.endpoint
    ? [['Endpoint in teapot', `${dashboard}/endpoints/${encodeURIComponent(event.endpoint.id)}`]]
    : [];
  const content = contentOf(event, endpoint, dashboard);
  return message(content.title, [
    header(content.title),
    ...content.blocks,
    buttons([...links, ...content.links]),
    context(`teapot · ${event.type} · event ${event.id} · ${event.createdAt.toISOString()}`),
  ]);
}

interface Content {
  title: string;
  blocks: Array<SlackBlock | null>;
  links: Array<[string, string]>;
}

function contentOf(event: StoredEvent, endpoint: string, dashboard: string): Content {
  const data = event.data;
  switch (event.type) {
    case 'deployment.verified':
    case 'deployment.regressed':
      return deploymentContent(data, endpoint, dashboard);
    case 'changepoint.detected':
    case 'changepoint.updated':
    case 'changepoint.retracted':
      return changePointContent(event.type, data, endpoint, dashboard);
    case 'run.failed': {
      const runId = text(data.runId);
      return {
        title: `❌ Run failed on ${endpoint}`,
        blocks: [
          section(`*${escapeMrkdwn(text(data.errorClass) || 'failed')}*: ${escapeMrkdwn(text(data.error))}`),
        ],
        links: runId ? [['Run', `${dashboard}/runs/${runId}`]] : [],
      };
    }
    case 'ping':
      return {
        title: '🏓 teapot ping',
        blocks: [section('This channel receives teapot events.')],
        links: [],
      };
  }
}

/** Verdict, endpoint and deployment as fields; per profile its judged rows; a link comparing the runs. */
function deploymentContent(data: Record<string, unknown>, endpoint: string, dashboard: string): Content {
  const deployment = record(data.deployment);
  const verdict = (text(data.verdict) || 'inconclusive') as DeploymentVerdictName;
  const label = text(deployment.label);
  const title = `${VERDICT_EMOJI[verdict] ?? ''} Deployment ${verdict}: ${label} on ${endpoint}`.trim();
  const profiles = array(data.profiles).map(record);
  const decidedBy = [...new Set(profiles.flatMap((p) => array(p.decidedBy).map(text)))];
  const blocks: Array<SlackBlock | null> = [
    fields([
      ['Verdict', `${VERDICT_EMOJI[verdict] ?? ''} ${verdict}`],
      ['Endpoint', escapeMrkdwn(endpoint)],
      ['Deployment', escapeMrkdwn(label)],
      ['Version', escapeMrkdwn(text(deployment.version) || '-')],
      ['Threshold', formatChange(number(data.threshold), true).replace(/^\+/, '±')],
      ['Decided by', decidedBy.length > 0 ? decidedBy.join(', ') : '-'],
    ]),
  ];
  for (const profile of profiles.slice(0, SLACK_LISTS.profiles)) {
    const rows = array(profile.metrics).map((row) => record(row) as unknown as VerificationRowFigures);
    const profileVerdict = text(profile.verdict) as DeploymentVerdictName;
    const heading =
      `*${escapeMrkdwn(text(profile.profileName) || text(profile.profileId))}*: ` +
      `${VERDICT_EMOJI[profileVerdict] ?? ''} ${profileVerdict}` +
      (profile.reason ? ` (${escapeMrkdwn(text(profile.reason))})` : '');
    // The diagnostics that changed: why the rows moved, under the profile's verdict.
    const why = array(profile.explanations).map(text).filter(Boolean);
    const explained = why.length > 0 ? `${heading}\n_Why:_ ${escapeMrkdwn(why.join('; '))}` : heading;
    blocks.push(listSection(explained, rows.map(rowLine), SLACK_LISTS.rowsPerProfile));
  }
  if (profiles.length > SLACK_LISTS.profiles)
    blocks.push(context(`+${profiles.length - SLACK_LISTS.profiles} more profiles`));
  const compared = profiles.find(
    (p) => array(p.baselineRunIds).length > 0 && array(p.candidateRunIds).length > 0,
  );
  const links: Array<[string, string]> = [];
  if (compared) {
    const query = new URLSearchParams({
      'baseline.runIds': array(compared.baselineRunIds).map(text).join(','),
      'candidate.runIds': array(compared.candidateRunIds).map(text).join(','),
      includeSaturated: 'true',
    });
    links.push(['Compare runs', `${dashboard}/compare?${query}`]);
  }
  return { title, blocks, links };
}

/** The series that moved (largest first), before -> after with the change; what it coincides with. */
function changePointContent(
  type: 'changepoint.detected' | 'changepoint.updated' | 'changepoint.retracted',
  data: Record<string, unknown>,
  endpoint: string,
  dashboard: string,
): Content {
  const magnitude = number(data.magnitude);
  const mark = type === 'changepoint.retracted' ? '↩️' : magnitude !== null && magnitude > 0 ? '📈' : '📉';
  const title =
    `${mark} Change point ${type.slice('changepoint.'.length)} on ${endpoint}: ` +
    `${text(data.metric)} ${text(data.statistic)} ${formatChange(magnitude, true)}`;
  const series = array(data.changePoints).map(record);
  const lines = (series.length > 0 ? series : [data]).map(
    (c) =>
      `• \`${text(c.metric)} ${text(c.statistic)}\` ` +
      `${formatBeforeAfter({ baseline: number(c.meanBefore), candidate: number(c.meanAfter), unit: text(c.unit) })} ` +
      `*${formatChange(number(c.magnitude), true)}* (${text(c.kind) || 'step'}, p ${formatP(number(c.pValue))})`,
  );
  const summary = text(record(data.attribution).summary);
  const runId = text(data.runId);
  return {
    title,
    blocks: [
      listSection(`*Series that moved* (at ${text(data.at)})`, lines, SLACK_LISTS.changePoints),
      summary ? section(`*Why*: ${escapeMrkdwn(summary)}`) : null,
    ],
    links: runId ? [['Run after the change', `${dashboard}/runs/${runId}`]] : [],
  };
}

/** `• tpot p50 (ms) 6.40 -> 12.1 ms *+89.1%* [+85.0%, +93.2%] regressed` */
function rowLine(row: VerificationRowFigures): string {
  return (
    `• \`${rowName(row)}\` ${formatBeforeAfter(row)} *${formatChange(row.delta, row.relative)}* ` +
    `${formatInterval(row.interval, row.relative)} ${row.verdict}`
  );
}

function formatP(p: number | null): string {
  return p === null ? '-' : p < 0.001 ? '< 0.001' : p.toFixed(3);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function number(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
