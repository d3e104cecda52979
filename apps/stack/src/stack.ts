import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { EnvError, loadApiEnv, loadWorkerEnv, type EnvSource } from '@teapot/config';
import { abortUnfinishedRuns, createDatabase, ensureDatabase, migrate } from '@teapot/db';
import { isFinalRunStatus, QUEUE_NAMES, UNFINISHED_RUN_STATUSES, WORKER_ROLES } from '@teapot/contracts';
import { ApiRequestError, TeapotApiClient, trendQuery, type RunView } from './api-client';
import type { StackOptions } from './args';
import type { Output } from './children';
import {
  DEMO_CONCURRENCY,
  DEMO_REQUESTS,
  demoEndpointName,
  registerDemoEndpoint,
  simulatorArgs,
  type DemoEndpoint,
  type DemoQuant,
  type RegisteredEndpoint,
} from './demo';
import { DEV_ENV_FILE, REPO_ROOT, resolveStackEnv, type StackEnv } from './dev-env';
import { checkServices, explainServiceProblems, maskPassword } from './preflight';
import { announceSlowerDeployment } from './deployment-demo';
import {
  describeMethod,
  medianFigures,
  ratios,
  renderComparison,
  renderDeploymentWebhook,
  renderTable,
  renderTrend,
  type EndpointRow,
} from './report';
import { StackError, StackInterrupted, StackSession } from './session';

export interface StackIo {
  /** The launcher's environment (process.env in main.ts). */
  env: EnvSource;
  output: Output;
  /** Ctrl-C / SIGTERM. */
  signal?: AbortSignal;
  /** Where generated dev secrets are kept (default `.teapot/dev.env` at the repository root). */
  devEnvFile?: string;
}

export interface StackResult {
  exitCode: number;
  /** Every child process this run started (all stopped by the time this returns). */
  childPids: number[];
}

const SCRIPTS = {
  api: path.join(REPO_ROOT, 'apps/api/dist/main.js'),
  worker: path.join(REPO_ROOT, 'apps/worker/dist/main.js'),
  simulator: path.join(REPO_ROOT, 'packages/simulator/dist/main.js'),
};

const QUANTS: readonly DemoQuant[] = ['fp16', 'fp8'];
const BOOT_TIMEOUT_MS = 60_000;
const REGISTER_TIMEOUT_MS = 30_000;
/** Three post-deployment runs of a few seconds each, on a worker that also runs the schedule's. */
const DEPLOYMENT_TIMEOUT_MS = 180_000;
const POLL_MS = 1_000;
/** The scheduler looks ahead by two ticks; short, so the demo's slots are enqueued promptly. */
const SCHEDULER_TICK_MS = 500;

/**
 * The worker as two processes (WORKER_QUEUES): one only measures runs, so no scheduling, webhook
 * delivery or statistics share the event loop that timestamps tokens; the other does every other
 * queue and chore, including those added later.
 */
const WORKERS = [
  { name: 'worker-runs', queues: [QUEUE_NAMES.runs] },
  { name: 'worker-background', queues: WORKER_ROLES.filter((role) => role !== QUEUE_NAMES.runs) },
] as const;

/** What stopping needs to know of how far the launch got. */
interface LaunchState {
  /** Set once the database exists and is migrated: its unfinished runs are ended on the way out. */
  databaseUrl: string | null;
}

/** Why a run of the demo endpoints was ended by the launcher rather than measured. */
export const CANCELLED_BY_LAUNCHER =
  'cancelled: teapot (npm start) stopped its workers before this run was measured';

/** Starts the whole service on this machine; see USAGE in args.ts. Never throws for expected failures. */
export async function runStack(options: StackOptions, io: StackIo): Promise<StackResult> {
  const say = (text = '') => io.output.write(`${text}\n`);
  const session = new StackSession(io.output, options.verbose, io.signal);
  const state: LaunchState = { databaseUrl: null };
  try {
    await launch(options, io, session, state, say);
    return { exitCode: 0, childPids: session.pids };
  } catch (error) {
    if (error instanceof StackInterrupted) {
      say('\nstopping: scheduling first, then the measuring worker, then the API and the simulators...');
      await stopStack(session, state, say);
      return { exitCode: 130, childPids: session.pids };
    }
    await stopStack(session, state, say);
    if (error instanceof StackError || error instanceof EnvError) say(`\n${error.message}`);
    else
      say(
        `\nteapot stopped on an unexpected error: ${options.verbose ? ((error as Error).stack ?? String(error)) : describe(error)}`,
      );
    return { exitCode: 1, childPids: session.pids };
  }
}

async function launch(
  options: StackOptions,
  io: StackIo,
  session: StackSession,
  state: LaunchState,
  say: (text?: string) => void,
): Promise<void> {
  say(
    `teapot: starting the whole service on this machine${options.verbose ? '' : " (--verbose shows the services' logs)"}`,
  );
  const devEnvFile = io.devEnvFile ?? DEV_ENV_FILE;
  const { env, apiKeyFromEnvironment, generated } = resolveStackEnv(io.env, devEnvFile);
  const relative = path.relative(process.cwd(), devEnvFile);
  // Shown in a `. FILE && curl ...` hint: sh looks a bare file name up in PATH, so keep a slash in it.
  const shownDevEnvFile = relative.startsWith('..')
    ? devEnvFile
    : relative.includes('/')
      ? relative
      : `./${relative}`;
  if (generated.length > 0) say(`generated ${generated.join(' and ')} into ${shownDevEnvFile} (gitignored)`);
  await prepare(io.env, env, options, say);
  state.databaseUrl = env.DATABASE_URL;

  const api = await startServices(session, options, io, env, say);
  const since = new Date();
  const registered = await session.guard(
    'registering the endpoints through the API',
    () =>
      Promise.all(demoEndpoints(options).map((demo) => registerDemoEndpoint(api, demo, options.intervalS))),
    REGISTER_TIMEOUT_MS,
  );
  for (const endpoint of registered) {
    say(
      `endpoint ${endpoint.name} (${endpoint.actions.join(', ')}): serving configuration v${endpoint.configVersion}, profile every ${options.intervalS} s`,
    );
  }

  say(
    `\nwaiting for ${options.runs} scheduled runs per endpoint ` +
      `(${DEMO_REQUESTS} requests at concurrency ${DEMO_CONCURRENCY}, every ${options.intervalS} s)...`,
  );
  const runs = await session.guard(
    'waiting for the scheduled runs',
    (stop) => waitForRuns(api, registered, since, options, say, stop),
    (options.runs + 2) * options.intervalS * 1000 + 60_000,
  );
  report(registered, runs, say);
  await session.guard(
    'reading the trend',
    () => reportTrend(api, registered, since, say),
    REGISTER_TIMEOUT_MS,
  );
  await session.guard(
    'reading the comparison',
    () => reportComparison(api, registered, runs, say),
    REGISTER_TIMEOUT_MS,
  );
  await session.guard(
    'verifying the deployment',
    (stop) => reportDeployment(api, registered, options, say, stop),
    DEPLOYMENT_TIMEOUT_MS,
  );

  if (options.once) {
    await stopStack(session, state, say);
    return;
  }
  say(
    [
      'teapot is running; Ctrl-C stops it.',
      `  dashboard     ${api.baseUrl}/  (open it and paste the API key below)`,
      `  API           ${api.baseUrl}`,
      `  API docs      ${api.baseUrl}/docs`,
      `  Prometheus    ${api.baseUrl}/metrics  (the same key; latest results per endpoint, profile and configuration)`,
      `  API key       TEAPOT_API_KEY in ${apiKeyFromEnvironment ? 'your environment' : shownDevEnvFile} (send it as "Authorization: Bearer <key>")`,
      `  try           ${apiKeyFromEnvironment ? '' : `. ${shownDevEnvFile} && `}curl -H "Authorization: Bearer $TEAPOT_API_KEY" "${api.baseUrl}/runs?limit=5"`,
      `  trend         curl -H "Authorization: Bearer $TEAPOT_API_KEY" "${api.baseUrl}/trends?metric=itl&statistic=p99&bucket=hour&from=${since.toISOString()}&groupBy=weightQuant"`,
      `  compare       curl -H "Authorization: Bearer $TEAPOT_API_KEY" -H 'content-type: application/json' ${api.baseUrl}/comparisons -d '${JSON.stringify(comparisonBody(registered, since))}'`,
      `  endpoints     ${registered.map((endpoint) => `${endpoint.name} -> ${endpoint.baseUrl}`).join(', ')}`,
    ].join('\n'),
  );
  await session.serveUntilInterrupted();
  say('\nstopping: scheduling first, then the measuring worker, then the API and the simulators...');
  await stopStack(session, state, say);
  say('stopped.');
}

/**
 * Stops every child without leaving a run `queued` or `running` behind: the worker that schedules
 * first (no slot is queued after it), then the runs that never started are ended as aborted, then
 * the measuring worker (its run in flight finishes within SHUTDOWN_GRACE_MS or is aborted and
 * stored), then whatever that worker left unfinished is ended too, then the API and the simulators.
 */
async function stopStack(
  session: StackSession,
  state: LaunchState,
  say: (text?: string) => void,
): Promise<void> {
  const measuring = (worker: (typeof WORKERS)[number]) =>
    (worker.queues as readonly string[]).includes(QUEUE_NAMES.runs);
  await session.stopNamed(WORKERS.filter((worker) => !measuring(worker)).map((worker) => worker.name));
  const db = state.databaseUrl ? createDatabase(state.databaseUrl, { max: 1 }) : null;
  try {
    const endpointNames = QUANTS.map(demoEndpointName);
    let cancelled = 0;
    if (db) {
      cancelled += await abortUnfinishedRuns(
        db.prisma,
        { endpointNames, statuses: ['queued'] },
        CANCELLED_BY_LAUNCHER,
      );
    }
    await session.stopNamed(WORKERS.filter(measuring).map((worker) => worker.name));
    if (db) {
      cancelled += await abortUnfinishedRuns(
        db.prisma,
        { endpointNames, statuses: UNFINISHED_RUN_STATUSES },
        CANCELLED_BY_LAUNCHER,
      );
    }
    if (cancelled > 0)
      say(`${cancelled} run(s) that had not been measured were ended as aborted (${CANCELLED_BY_LAUNCHER})`);
  } catch (error) {
    say(`could not end the runs that were never measured: ${describe(error)}`);
  } finally {
    await db?.close();
  }
  await session.stop();
}

/** Everything that can be checked before a process starts: the build, both services, the ports; then the schema. */
async function prepare(
  source: EnvSource,
  env: StackEnv,
  options: StackOptions,
  say: (text?: string) => void,
): Promise<void> {
  // The children validate the same way; failing here names every bad variable before anything starts.
  loadApiEnv(apiEnvOf(source, env, options));
  for (const worker of WORKERS) loadWorkerEnv(workerEnvOf(source, env, worker));
  const unbuilt = Object.values(SCRIPTS).filter((script) => !existsSync(script));
  if (unbuilt.length > 0) {
    throw new StackError(
      `teapot is not built (missing ${unbuilt.map((script) => path.relative(REPO_ROOT, script)).join(', ')}): ` +
        'run `pnpm build` from the repository root (npm start builds first).',
    );
  }
  const problems = await checkServices(env);
  if (problems.length > 0) throw new StackError(explainServiceProblems(problems));
  say(`Postgres ${maskPassword(env.DATABASE_URL)} and Redis ${maskPassword(env.REDIS_URL)} answer`);
  await assertPortsFree(options);
  const created = await ensureDatabase(env.DATABASE_URL);
  const migrated = await migrate(env.DATABASE_URL);
  say(
    `database ${created ? 'created and ' : ''}migrated: ${migrated.applied.length} migration(s) applied, ` +
      `${migrated.alreadyApplied.length} already there`,
  );
}

/**
 * Starts the simulators (FP16 on `simulatorPorts[0]`, FP8 on `[1]`), the workers and the API at once
 * and returns a client once all are up; the deployment-rounds test starts the same services.
 */
export async function startServices(
  session: StackSession,
  options: StackOptions,
  io: StackIo,
  env: StackEnv,
  say: (text?: string) => void,
): Promise<TeapotApiClient> {
  const simulatorsReady = QUANTS.map((quant, i) =>
    session
      .start({
        name: `sim-${quant}`,
        script: SCRIPTS.simulator,
        args: simulatorArgs(quant, options.simulatorPorts[i]),
        env: { PATH: io.env.PATH ?? '' },
      })
      .waitForLine(/^teapot-sim listening on (\S+): (.*)$/),
  );
  const workersReady = WORKERS.map((worker) =>
    session
      .start({ name: worker.name, script: SCRIPTS.worker, env: workerEnvOf(io.env, env, worker) })
      .waitForLine(/worker \S+ started/),
  );
  session.start({ name: 'api', script: SCRIPTS.api, env: apiEnvOf(io.env, env, options) });
  const api = new TeapotApiClient(`http://127.0.0.1:${options.apiPort}`, env.TEAPOT_API_KEY);

  const deployments = await session.guard(
    'starting the simulators',
    () => Promise.all(simulatorsReady),
    BOOT_TIMEOUT_MS,
  );
  for (const [, url, deployment] of deployments) say(`simulator ${url}: ${deployment}`);
  await session.guard('starting the API', (stop) => waitUntil(() => api.healthy(), stop), BOOT_TIMEOUT_MS);
  await session.guard('starting the workers', () => Promise.all(workersReady), BOOT_TIMEOUT_MS);
  say(`API ${api.baseUrl} running; workers (WORKER_QUEUES, scheduler tick ${SCHEDULER_TICK_MS} ms):`);
  for (const worker of WORKERS) say(`  ${worker.name}: ${worker.queues.join(', ')}`);
  return api;
}

function demoEndpoints(options: StackOptions): DemoEndpoint[] {
  return QUANTS.map((quant, i) => ({
    quant,
    name: demoEndpointName(quant),
    baseUrl: `http://127.0.0.1:${options.simulatorPorts[i]}/v1`,
  }));
}

/** P99 ITL of both endpoints per run, read through GET /trends (one series per weight quantization). */
async function reportTrend(
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
function comparisonBody(registered: RegisteredEndpoint[], since: Date, runs?: Map<string, RunView[]>) {
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
async function reportComparison(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  runs: Map<string, RunView[]>,
  say: (text?: string) => void,
): Promise<void> {
  const comparison = await api.compare(comparisonBody(registered, new Date(0), runs));
  say('FP8 against FP16 over the same runs (POST /comparisons; change = FP8 / FP16 - 1):\n');
  say(renderComparison(comparison, { baseline: 'FP16', candidate: 'FP8' }));
}

/**
 * Makes the FP8 endpoint slower (its simulator switches to FP16 weights), announces it as a
 * deployment with the new serving configuration, and prints the signed webhook the launcher's own
 * receiver got once the deployment was verified.
 */
async function reportDeployment(
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
    throw new StackError(
      `The deployment ${deployment.id} was ${deployment.verdict}, which announces no webhook: GET /deployments/${deployment.id} says why.`,
    );
  }
  say(`\nThe signed ${webhook.body?.type ?? ''} webhook the local receiver got:\n`);
  say(renderDeploymentWebhook(webhook));
}

/** The table of medians, the FP8/FP16 ratios, and any run that did not measure. */
function report(
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

function apiEnvOf(source: EnvSource, env: StackEnv, options: StackOptions): Record<string, string> {
  // The launcher talks to the API on 127.0.0.1, whatever HOST the shell may have exported.
  return { ...childBaseEnv(source, env), HOST: '127.0.0.1', PORT: String(options.apiPort) };
}

function workerEnvOf(
  source: EnvSource,
  env: StackEnv,
  worker: (typeof WORKERS)[number],
): Record<string, string> {
  return {
    ...childBaseEnv(source, env),
    WORKER_ID: `stack-${worker.name}`,
    WORKER_QUEUES: worker.queues.join(','),
    // One run at a time: the two endpoints share this machine's cores, so measuring them together would blur both.
    WORKER_CONCURRENCY: '1',
    SCHEDULER_TICK_MS: String(SCHEDULER_TICK_MS),
  };
}

/** The variables every teapot process shares, on top of the launcher's own environment. */
function childBaseEnv(source: EnvSource, env: StackEnv): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    // On one machine the webhook receivers (the README's, a developer's) run on this machine too.
    TEAPOT_WEBHOOK_URL_ALLOW: 'public,private,loopback',
    // The demo's deployment runs take seconds: check for their end every second, not every five.
    DEPLOYMENT_POLL_MS: '1000',
    ...inherited,
    ...env,
    LOG_LEVEL: 'info',
    // The simulated endpoints listen on this machine's loopback, which endpoints may use only when allowed.
    TEAPOT_ENDPOINT_URL_ALLOW: 'public,private,loopback',
  };
}

/**
 * Polls the runs of each profile until every endpoint has `options.runs` finished runs; returns
 * exactly those, the first ones of each endpoint, so both rows of the table count the same runs.
 */
async function waitForRuns(
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

async function waitUntil(check: () => Promise<boolean>, stop: AbortSignal): Promise<void> {
  while (!stop.aborted && !(await check())) await pause(250);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function assertPortsFree(options: StackOptions): Promise<void> {
  const wanted = [
    { port: options.apiPort, flag: '--api-port', host: '0.0.0.0' },
    ...options.simulatorPorts.map((port) => ({ port, flag: '--sim-ports', host: '127.0.0.1' })),
  ];
  for (const { port, flag, host } of wanted) {
    if (!(await portFree(port, host))) {
      throw new StackError(
        `teapot cannot start: port ${port} is in use (another teapot still running?). Stop what holds it, or choose other ports with ${flag}.`,
      );
    }
  }
}

function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
