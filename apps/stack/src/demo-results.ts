import { isFinalRunStatus } from '@teapot/contracts';
import { ApiRequestError, trendQuery, type RunView, type TeapotApiClient } from './api-client';
import type { StackOptions } from './args';
import { measureCapacities, renderCapacities } from './capacity-demo';
import { DEMO_USD_PER_GPU_HOUR, type DemoQuant, type RegisteredEndpoint } from './demo';
import { announceSlowerDeployment } from './deployment-demo';
import { renderDeploymentWebhook, renderUnannouncedVerdict } from './deployment-report';
import {
  describeMethod,
  medianFigures,
  ratios,
  renderComparison,
  renderTable,
  renderTrend,
  type EndpointRow,
} from './report';
import { StackError, StackInterrupted } from './session';
import { pause } from './start-services';

// What the demo's runs measured, read back through the API and printed as the launch goes.
const POLL_MS = 1_000;

/** P99 ITL of both endpoints per run, read through GET /trends (one series per weight quantization). */
export async function reportTrend(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  since: Date,
  say: (text?: string) => void,
): Promise<void> {
  const query = {
    metric: 'itl',
    statistic: 'p99',
    bucket: 'run',
    from: since.toISOString(),
    to: new Date().toISOString(),
    profileId: registered.map((endpoint) => endpoint.profileId),
    groupBy: 'weightQuant',
    // The same runs as the table above: on a busy machine the client may saturate.
    includeSaturated: 'true',
  };
  const trend = await api.trend(query);
  say(`P99 ITL per run, over every token of each run's histogram (GET /trends?${trendQuery(query)}):\n`);
  say(renderTrend(trend));
}

/** FP16 vs FP8 over a window and the demo's profiles: the body the README's curl and the report use. */
export function comparisonBody(registered: RegisteredEndpoint[], since: Date, runs?: Map<string, RunView[]>) {
  const side = (quant: DemoQuant) => {
    const endpoint = registered.find((e) => e.quant === quant)!;
    // The same runs as the table (a busy machine may saturate the client); else the window since start.
    const measured = runs ? measuredRuns(runs.get(endpoint.profileId) ?? []).map((run) => run.id) : [];
    return measured.length > 0
      ? { runIds: measured, includeSaturated: true }
      : { from: since.toISOString(), profileIds: [endpoint.profileId], config: { weightQuant: [quant] } };
  };
  return {
    baseline: side('fp16'),
    candidate: side('fp8'),
    metrics: ['itl', 'tpot', 'ttft', 'e2e', 'output_tokens_per_s', 'error_rate'],
    statistics: ['p50', 'p99'],
  };
}

/** FP8 against FP16 over the table's runs, read through POST /comparisons, with its verdicts. */
export async function reportComparison(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  runs: Map<string, RunView[]>,
  say: (text?: string) => void,
): Promise<void> {
  const comparison = await api.compare(comparisonBody(registered, new Date(0), runs));
  say('FP8 against FP16 over the same runs (POST /comparisons; change = FP8 / FP16 - 1):\n');
  say(renderComparison(comparison, { baseline: 'FP16', candidate: 'FP8' }));
}

/** A capacity search of each endpoint at MLPerf's interactive limits, and what FP8 buys in traffic and cost. */
export async function reportCapacity(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  say: (text?: string) => void,
  stop: AbortSignal,
): Promise<void> {
  say(
    "\nCapacity at MLPerf's llama3.1-8b interactive limits (P99 TTFT <= 500 ms, P99 TPOT <= 30 ms), Poisson " +
      'arrivals for 5 s a point, one search per endpoint (POST /sweeps):',
  );
  const sweeps = await measureCapacities(api, registered, say, stop);
  say('');
  say(renderCapacities(registered, sweeps));
  say(
    `Cost from the serving configuration's $${DEMO_USD_PER_GPU_HOUR.toFixed(2)}/GPU-hour (an assumed price). ` +
      'Each point is a stored run: GET /sweeps/{id} lists them with the frontier, GET /trends?metric=capacity keeps the history.',
  );
}

/**
 * Makes the FP8 endpoint slower (its simulator switches to FP16 weights and a small KV cache), announces it as a
 * deployment with the new serving configuration, and prints the signed webhook the launcher's own
 * receiver got once the deployment was verified.
 */
export async function reportDeployment(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  options: StackOptions,
  say: (text?: string) => void,
  stop: AbortSignal,
): Promise<void> {
  const fp8 = registered.find((endpoint) => endpoint.quant === 'fp8')!;
  say(`\nA deployment that makes ${fp8.name} slower, verified against its scheduled runs:`);
  const { deployment, webhook } = await announceSlowerDeployment(api, fp8, options.runs, say, stop);
  if (!webhook) {
    // A verdict that announces nothing is still a finished demo: the launcher serves on.
    say(renderUnannouncedVerdict(deployment));
    return;
  }
  say(`\nThe signed ${webhook.body?.type ?? ''} webhook the local receiver got:\n`);
  say(renderDeploymentWebhook(webhook));
}

/** The table of medians, the FP8/FP16 ratios, and any run that did not measure. */
export function reportRuns(
  registered: RegisteredEndpoint[],
  runs: Map<string, RunView[]>,
  say: (text?: string) => void,
): void {
  const rows: EndpointRow[] = registered.map((endpoint) => {
    const measured = measuredRuns(runs.get(endpoint.profileId) ?? []);
    return {
      endpoint: endpoint.name,
      quant: endpoint.quant,
      runs: measured.length,
      figures: medianFigures(measured),
    };
  });
  const [fp16, fp8] = rows;
  say('\nWhat the scheduled runs measured (read back through GET /runs; median over the runs):\n');
  say(renderTable(rows, { label: 'FP8 / FP16', figures: ratios(fp8.figures, fp16.figures) }));
  say(describeMethod(registered.flatMap((endpoint) => measuredRuns(runs.get(endpoint.profileId) ?? []))));
  const failures = registered.flatMap((endpoint) =>
    failedRuns(runs.get(endpoint.profileId) ?? []).map(
      (run) =>
        `  ${endpoint.name}: run ${run.id} ${run.status}${run.errorClass ? ` (${run.errorClass})` : ''}: ${run.error ?? 'no reason given'}`,
    ),
  );
  if (failures.length > 0) say(`Runs that did not measure:\n${failures.join('\n')}\n`);
  if (rows.some((row) => row.runs === 0)) throw new StackError('An endpoint has no measured run: see above.');
}

/**
 * Polls the runs of each profile until every endpoint has `options.runs` finished runs; returns
 * exactly those, the first ones of each endpoint, so both rows of the table count the same runs.
 */
export async function waitForRuns(
  api: TeapotApiClient,
  endpoints: RegisteredEndpoint[],
  since: Date,
  options: StackOptions,
  say: (text?: string) => void,
  stop: AbortSignal,
): Promise<Map<string, RunView[]>> {
  let last = '';
  while (!stop.aborted) {
    const runs = new Map<string, RunView[]>();
    try {
      for (const endpoint of endpoints)
        runs.set(endpoint.profileId, await api.runsOf(endpoint.profileId, since));
    } catch (error) {
      // The API answering with an error is final; a dropped connection is retried (the guard sees a dead API).
      if (error instanceof ApiRequestError) throw error;
      await pause(POLL_MS);
      continue;
    }
    const finished = new Map<string, RunView[]>();
    const progress = endpoints.map((endpoint) => {
      const all = runs.get(endpoint.profileId) ?? [];
      const done = all
        .filter((run) => isFinalRunStatus(run.status))
        .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt))
        .slice(0, options.runs);
      finished.set(endpoint.profileId, done);
      const running = all.some((run) => run.status === 'running') ? ', one running' : '';
      return `${endpoint.quant} ${done.length}/${options.runs}${running}`;
    });
    const line = `  runs: ${progress.join('   ')}`;
    if (line !== last) say(line);
    last = line;
    if ([...finished.values()].every((done) => done.length >= options.runs)) return finished;
    await pause(POLL_MS);
  }
  throw new StackInterrupted('stopped waiting for runs');
}

function measuredRuns(runs: RunView[]): RunView[] {
  return runs.filter((run) => run.status === 'succeeded' || run.status === 'partial');
}

function failedRuns(runs: RunView[]): RunView[] {
  return runs.filter((run) => run.status === 'failed' || run.status === 'aborted');
}
