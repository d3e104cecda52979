import {
  explanationLine,
  formatChange,
  formatFigure,
  formatInterval,
  rowName,
  VERDICT_EMOJI,
  type MetricVerification,
  type ProfileVerification,
} from '@teapot/contracts';
import { table } from '../report';
import type { Deployment } from './teapot-api';

/** What a verdict report is about, beside the deployment itself. */
export interface ReportContext {
  endpointName: string;
  apiUrl: string;
  dashboardUrl: string;
  /** Set when the wait ended before a verdict: why (e.g. the timeout). */
  unfinished?: string;
}

/**
 * The rows a report shows of a profile: the judged ones of a single-load profile (the others are
 * context, on the API resource), every row of a capacity-search profile (capacity, and cost at it).
 */
export function shownRows(profile: ProfileVerification): MetricVerification[] {
  return profile.candidateSweepIds ? profile.metrics : profile.metrics.filter((row) => row.judged);
}

/** The links a reader follows: the endpoint's page (its trend marks the deployment), each profile's comparison, the API resource. */
export function reportLinks(deployment: Deployment, context: ReportContext): Array<[string, string]> {
  const dashboard = `${context.dashboardUrl}/#`;
  const links: Array<[string, string]> = [
    ['endpoint and its deployments', `${dashboard}/endpoints/${deployment.endpointId}`],
  ];
  for (const profile of deployment.verification?.profiles ?? []) {
    if (profile.baselineRunIds.length === 0 || profile.candidateRunIds.length === 0) continue;
    const query = new URLSearchParams({
      'baseline.runIds': profile.baselineRunIds.join(','),
      'candidate.runIds': profile.candidateRunIds.join(','),
      // the comparison counts the runs the verification counted
      ...(deployment.settings.includeSaturated ? { includeSaturated: 'true' } : {}),
    });
    links.push([`comparison: ${profile.profileName ?? profile.profileId}`, `${dashboard}/compare?${query}`]);
  }
  links.push(['deployment (API)', `${context.apiUrl}/deployments/${deployment.id}`]);
  return links;
}

/** The verdict as the terminal shows it: a headline, a table per profile, the links. */
export function renderVerdict(deployment: Deployment, context: ReportContext): string {
  const lines = [headline(deployment, context)];
  const verification = deployment.verification;
  if (verification) {
    lines.push(
      `judged at ±${(verification.threshold * 100).toFixed(1)}%, change intervals at ${percent(verification.confidence)} confidence; * = decided the verdict`,
    );
    for (const profile of verification.profiles) {
      lines.push('', profileLine(profile));
      const rows = shownRows(profile);
      if (rows.length === 0) continue;
      lines.push(
        ...table([
          ['  row', 'baseline', 'candidate', 'change', 'interval', 'verdict'],
          ...rows.map((row) => [
            `  ${rowName(row)}`,
            formatFigure(row.baseline),
            formatFigure(row.candidate),
            formatChange(row.delta, row.relative),
            formatInterval(row.interval, row.relative),
            `${row.verdict}${decided(profile, row) ? ' *' : ''}`,
          ]),
        ]),
      );
    }
  }
  lines.push(
    '',
    ...table(
      reportLinks(deployment, context).map(([name, url]) => [name, url]),
      'left',
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** A PR comment: the verdict as a badge line, the judged rows as a table, the links. */
export function renderMarkdown(deployment: Deployment, context: ReportContext): string {
  const verdict = deployment.verdict;
  const verification = deployment.verification;
  const out = [
    `### ${VERDICT_EMOJI[verdict]} teapot: deployment **${verdict.replace('_', ' ')}**`,
    '',
    `**${md(deployment.label)}**${deployment.version ? ` (\`${md(deployment.version)}\`)` : ''} on **${md(context.endpointName)}**` +
      (verification
        ? ` · judged at ±${(verification.threshold * 100).toFixed(1)}% · intervals at ${percent(verification.confidence)} confidence`
        : ''),
  ];
  if (context.unfinished) out.push('', `> ${md(context.unfinished)}`);
  const rows = (verification?.profiles ?? []).flatMap((profile) =>
    shownRows(profile).map((row) => [
      md(profile.profileName ?? profile.profileId),
      decided(profile, row) ? `**${rowName(row)}**` : rowName(row),
      formatFigure(row.baseline),
      formatFigure(row.candidate),
      decided(profile, row)
        ? `**${formatChange(row.delta, row.relative)}**`
        : formatChange(row.delta, row.relative),
      formatInterval(row.interval, row.relative),
      `${VERDICT_EMOJI[row.verdict === 'unchanged' ? 'verified' : row.verdict]} ${row.verdict}`,
    ]),
  );
  if (rows.length > 0) {
    out.push(
      '',
      '| profile | row | baseline | candidate | change | interval | verdict |',
      '| --- | --- | ---: | ---: | ---: | --- | --- |',
      ...rows.map((cells) => `| ${cells.join(' | ')} |`),
    );
  }
  for (const profile of verification?.profiles ?? []) {
    if (profile.reason)
      out.push('', `_${md(profile.profileName ?? profile.profileId)}: ${md(profile.reason)}_`);
    if (profile.explanations?.length)
      out.push(
        '',
        `**Why** (${md(profile.profileName ?? profile.profileId)}): ${md(explanationLine(profile.explanations))}`,
      );
  }
  out.push(
    '',
    reportLinks(deployment, context)
      .map(([name, url]) => `[${name}](${url})`)
      .join(' · '),
  );
  out.push('', `<sub>teapot deployment \`${deployment.id}\`, effective ${deployment.effectiveAt}</sub>`);
  return `${out.join('\n')}\n`;
}

function headline(deployment: Deployment, context: ReportContext): string {
  const version = deployment.version ? ` (version ${deployment.version})` : '';
  const state = context.unfinished
    ? `${deployment.verdict}: ${context.unfinished}`
    : deployment.verdict.toUpperCase();
  return `deployment ${deployment.id} "${deployment.label}"${version} on ${context.endpointName}: ${state}`;
}

function profileLine(profile: ProfileVerification): string {
  const by = profile.decidedBy.length > 0 ? ` (decided by ${profile.decidedBy.join(', ')})` : '';
  const reason = profile.reason ? `: ${profile.reason}` : '';
  const why = profile.explanations?.length ? `; why: ${explanationLine(profile.explanations)}` : '';
  return `profile ${profile.profileName ?? profile.profileId}: ${profile.verdict}${by}${reason}${why}`;
}

function decided(profile: ProfileVerification, row: MetricVerification): boolean {
  return profile.decidedBy.includes(`${row.metric}.${row.statistic}`);
}

function percent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(3))}%`;
}

/** Text from users inside a Markdown table or line: pipes and markup characters escaped. */
function md(text: string): string {
  return text.replace(/[\\|*_`<>[\]]/g, (c) => `\\${c}`);
}
