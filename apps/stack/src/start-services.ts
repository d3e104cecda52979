import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { loadApiEnv, loadWorkerEnv, type EnvSource } from '@teapot/config';
import { QUEUE_NAMES, WORKER_ROLES } from '@teapot/contracts';
import { ensureDatabase, migrate } from '@teapot/db';
import { TeapotApiClient } from './api-client';
import type { StackOptions } from './args';
import { DEMO_QUANTS, simulatorArgs } from './demo';
import { REPO_ROOT, type StackEnv } from './dev-env';
import { checkServices, explainServiceProblems, maskPassword } from './preflight';
import { StackError, type StackSession } from './session';
import type { StackIo } from './stack';

// Starting the stack's processes: what is checked first, and the environment each child gets.
const SCRIPTS = {
  api: path.join(REPO_ROOT, 'apps/api/dist/main.js'),
  worker: path.join(REPO_ROOT, 'apps/worker/dist/main.js'),
  simulator: path.join(REPO_ROOT, 'packages/simulator/dist/main.js'),
};

const BOOT_TIMEOUT_MS = 60_000;
/** The scheduler looks ahead by two ticks; short, so the demo's slots are enqueued promptly. */
const SCHEDULER_TICK_MS = 500;

/**
 * The worker as two processes (WORKER_QUEUES): one only measures runs, so no scheduling, webhook
 * delivery or statistics share the event loop that timestamps tokens; the other does every other
 * queue and chore, including those added later.
 */
export const WORKERS = [
  { name: 'worker-runs', queues: [QUEUE_NAMES.runs] },
  { name: 'worker-background', queues: WORKER_ROLES.filter((role) => role !== QUEUE_NAMES.runs) },
] as const;

/** Everything that can be checked before a process starts: the build, both services, the ports; then the schema. */
export async function prepare(
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
 * and returns a client once all are up; the deployment-rounds bench starts the same services.
 */
export async function startServices(
  session: StackSession,
  options: StackOptions,
  io: StackIo,
  env: StackEnv,
  say: (text?: string) => void,
): Promise<TeapotApiClient> {
  const simulatorsReady = DEMO_QUANTS.map((quant, i) =>
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

async function waitUntil(check: () => Promise<boolean>, stop: AbortSignal): Promise<void> {
  while (!stop.aborted && !(await check())) await pause(250);
}

export function pause(ms: number): Promise<void> {
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
