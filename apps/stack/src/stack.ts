import path from 'node:path';
import { EnvError, type EnvSource } from '@teapot/config';
import type { StackOptions } from './args';
import type { Output } from './children';
import { DEMO_CONCURRENCY, DEMO_REQUESTS, demoEndpoints, registerDemoEndpoint } from './demo';
import {
  comparisonBody,
  reportCapacity,
  reportComparison,
  reportDeployment,
  reportRuns,
  reportTrend,
  waitForRuns,
} from './demo-results';
import { DEV_ENV_FILE, resolveStackEnv } from './dev-env';
import { StackError, StackInterrupted, StackSession } from './session';
import { prepare, startServices } from './start-services';
import { stopStack, type LaunchState } from './stop-stack';

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

const REGISTER_TIMEOUT_MS = 30_000;
/** Three post-deployment runs of a few seconds each, on a worker that also runs the schedule's. */
const DEPLOYMENT_TIMEOUT_MS = 180_000;
/** Two searches of up to 8 points of about 8 s each, measured one at a time between scheduled runs. */
const CAPACITY_TIMEOUT_MS = 300_000;

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
  // Up: a child that dies from now on is started again (a killed worker's run is taken over).
  session.superviseFromNow();
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
  reportRuns(registered, runs, say);
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
    'measuring the capacities',
    (stop) => reportCapacity(api, registered, say, stop),
    CAPACITY_TIMEOUT_MS,
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
