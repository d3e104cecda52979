import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { QUEUE_NAMES } from '@teapot/contracts';
import { closeQueuesAndConnection, createRedis } from '@teapot/jobs';
import { freePorts } from '@teapot/testing-base';
import type { TeapotApiClient } from './api-client';
import { DEFAULT_STACK_OPTIONS } from './args';
import { StackSession } from './session';
import { startServices } from './start-services';

export { ROUNDS_PROFILE } from './deployment-rounds';
export { DEMO_MODEL, redeploySimulator, servingConfigOf } from './demo';
export { TeapotApiClient } from './api-client';

/** What a test stack runs on: a test world's settings (own database, Redis prefix, secret key). */
export interface StackWorld {
  env(overrides?: Record<string, string>): Record<string, string>;
}

/** The API, both workers and both simulators of `npm start`, started for a test. */
export interface TestStack {
  api: TeapotApiClient;
  apiUrl: string;
  /** The bootstrap key (write scope). */
  apiKey: string;
  /** `http://127.0.0.1:PORT/v1` of the simulator serving FP16 and of the one serving FP8. */
  simulatorUrls: { fp16: string; fp8: string };
  /** What the services and the launcher said, for a failing test's message. */
  log(): string;
  /**
   * Runs `work` while starting every delayed job of the stack's queues as soon as it is queued, as
   * if its delay had passed: e.g. a deployment's first-run delay (30 s by default, for the endpoint's
   * caches to warm), which a simulator with no cache does not need.
   */
  withoutDelays<T>(work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts the services as the launcher does, on free ports, for tests that drive teapot from the
 * outside (the deployment rounds, `teapot deploy`). Deployments are polled every 250 ms so a
 * verification ends soon after its runs.
 */
export async function startTestStack(world: StackWorld): Promise<TestStack> {
  const [apiPort, fp16Port, fp8Port] = await freePorts(3);
  let log = '';
  const output = { write: (text: string) => void (log += text) };
  const env = world.env({
    PATH: process.env.PATH ?? '',
    TEAPOT_API_KEY: `tpk_test_${randomBytes(18).toString('base64url')}`,
    DEPLOYMENT_POLL_MS: '250',
  });
  const session = new StackSession(output, false);
  const stackEnv = {
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    TEAPOT_REDIS_PREFIX: env.TEAPOT_REDIS_PREFIX,
    TEAPOT_SECRET_KEY: env.TEAPOT_SECRET_KEY,
    TEAPOT_API_KEY: env.TEAPOT_API_KEY,
  };
  const options = {
    ...DEFAULT_STACK_OPTIONS,
    apiPort,
    simulatorPorts: [fp16Port, fp8Port] as [number, number],
  };
  try {
    const api = await startServices(session, options, { env, output }, stackEnv, (text = '') =>
      output.write(`${text}\n`),
    );
    return {
      api,
      apiUrl: api.baseUrl,
      apiKey: env.TEAPOT_API_KEY,
      simulatorUrls: { fp16: `http://127.0.0.1:${fp16Port}/v1`, fp8: `http://127.0.0.1:${fp8Port}/v1` },
      log: () => `${log}\n${session.recentLogs()}`,
      withoutDelays: (work) => withoutDelays(env.REDIS_URL, env.TEAPOT_REDIS_PREFIX, work),
      stop: () => session.stop(),
    };
  } catch (error) {
    await session.stop();
    if (error instanceof Error) error.message += `\n${log}`;
    throw error;
  }
}

/** How often withoutDelays looks for delayed jobs. */
const PROMOTE_EVERY_MS = 100;

async function withoutDelays<T>(redisUrl: string, prefix: string, work: () => Promise<T>): Promise<T> {
  const connection = createRedis(redisUrl);
  const queues = Object.values(QUEUE_NAMES).map((name) => new Queue(name, { connection, prefix }));
  let done = false;
  const promoting = (async () => {
    while (!done) {
      for (const queue of queues) {
        // A job that left the delayed set meanwhile (started, removed) needs no promotion.
        for (const job of await queue.getDelayed()) await job.promote().catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, PROMOTE_EVERY_MS));
    }
    // Redis failing here only leaves the delays as they were: slower, still correct.
  })().catch(() => undefined);
  try {
    return await work();
  } finally {
    done = true;
    await promoting;
    await closeQueuesAndConnection(connection, queues);
  }
}
