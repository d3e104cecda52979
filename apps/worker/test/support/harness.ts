import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { QueueName } from '@teapot/contracts';
import type { Deployment, Run } from '@teapot/db';
import { createRedis, type RunQueueProducer } from '@teapot/jobs';
import {
  createTestWorld,
  REDIS_URL,
  waitFor,
  type EndpointSeed,
  type ProfileSeed,
  type TestWorld,
} from '@teapot/testing';
import { seedEndpoint, seedManualRun, seedProfile, waitForRunToFinish } from '@teapot/testing';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import type { RunningSimulator } from '@teapot/simulator';

export interface WorkerWorld extends TestWorld {
  /** Environment for a worker in this world, with timings short enough for tests; overrides win. */
  workerEnv(overrides?: Record<string, string>): Record<string, string>;
  /** A queue of this world on its own connection, to look at or add jobs; close() closes it. */
  queue<Data>(name: QueueName): Queue<Data>;
}

/** One test file's isolated world (its own database and Redis prefix) and how a worker joins it. */
export async function createWorld(): Promise<WorkerWorld> {
  const world = await createTestWorld();
  const queues: Queue[] = [];
  return {
    ...world,
    queue: <Data>(name: QueueName) => {
      const queue = new Queue<Data>(name, { connection: createRedis(REDIS_URL), prefix: world.prefix });
      queues.push(queue as Queue);
      return queue;
    },
    close: async () => {
      for (const queue of queues.splice(0)) {
        await queue.close();
        await (await queue.client).quit();
      }
      await world.close();
    },
    workerEnv: (overrides = {}) =>
      world.env({
        LOG_LEVEL: process.env.TEAPOT_TEST_LOG_LEVEL ?? 'warn',
        SCHEDULER_TICK_MS: '200',
        WORKER_LOCK_DURATION_MS: '3000',
        WORKER_STALLED_INTERVAL_MS: '1000',
        ENDPOINT_LOCK_TTL_MS: '2000',
        ENDPOINT_BUSY_RETRY_MS: '200',
        SHUTDOWN_GRACE_MS: '3000',
        ...overrides,
      }),
  };
}

/** An endpoint on a running simulator: its URL and the model it serves. */
export function seedSimulatedEndpoint(world: TestWorld, sim: RunningSimulator): Promise<string> {
  return seedEndpoint(world, { baseUrl: sim.baseUrl, model: sim.deployment.model.name });
}

/** A manual run of a profile (or of `requests` requests) against a new endpoint, queued and waited for until it ends. */
export async function runOnce(
  world: TestWorld,
  producer: RunQueueProducer,
  endpoint: EndpointSeed,
  profile: number | ProfileSeed = 2,
): Promise<Run> {
  const endpointId = await seedEndpoint(world, endpoint);
  const seed = typeof profile === 'number' ? { requests: profile } : profile;
  const runId = await seedManualRun(world, await seedProfile(world, endpointId, seed));
  await producer.enqueueRun(runId);
  return waitForRunToFinish(world, runId);
}

/**
 * A synthetic run of 24 requests of 48 tokens stored as measured now: `gapScale` 2 makes every gap twice
 * as long (a regression); with `deploymentId` it is one of that deployment's runs.
 */
export async function storeSyntheticRun(
  world: TestWorld,
  of: { endpointId: string; profileId: string },
  seed: number,
  gapScale: number,
  deploymentId?: string,
): Promise<string> {
  const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: of.profileId } });
  return storeMeasuredRun(
    world.db,
    {
      ...of,
      deploymentId,
      profileSnapshot: { workload: profile.workload, load: profile.load, requestCount: 24 },
      trigger: deploymentId ? 'deployment' : 'manual',
      startedAt: new Date(),
    },
    syntheticRunResult({ requests: 24, tokensPerRequest: 48, seed, gapScale }),
  );
}

/**
 * A deployment ("fp8 -> fp16") of one profile, verified against the 3 runs before it and judged by 3
 * runs after it, queued at once: the verification tests' shared setup.
 */
export function createDeployment(
  world: TestWorld,
  endpointId: string,
  profileId: string,
): Promise<{ id: string }> {
  return world.db.prisma.deployment.create({
    data: {
      endpointId,
      label: 'fp8 -> fp16',
      effectiveAt: new Date(),
      runsPerProfile: 3,
      profileIds: [profileId],
      firstRunDelayS: 0,
      baselineRuns: 3,
      threshold: 0.1,
    },
  });
}

/** Waits for the deployment's verification to store a verdict; returns the deployment as stored. */
export async function waitForVerdict(
  world: TestWorld,
  deploymentId: string,
  pollMs: number,
): Promise<Deployment> {
  const stored = () => world.db.prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
  await waitFor('the verdict', async () => (await stored()).verdict !== null, 30_000, pollMs);
  return stored();
}

/** A worker in its own OS process (src/main.ts through the test register hook), as in production. */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private output = '';

  constructor(
    readonly id: string,
    env: Record<string, string>,
  ) {
    const main = path.join(__dirname, '../../src/main.ts');
    this.child = spawn(process.execPath, ['-r', require.resolve('@teapot/testing/register'), main], {
      env: { PATH: process.env.PATH ?? '', ...env, WORKER_ID: id },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get logs(): string {
    return this.output;
  }

  /** Resolves once the worker logged `text` (its start line, with LOG_LEVEL=info). */
  async waitForLog(text: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `worker ${this.id} to log "${text}"\n${this.output}`,
      async () => {
        if (this.child.exitCode !== null) throw new Error(`worker ${this.id} exited early:\n${this.output}`);
        return this.output.includes(text);
      },
      timeoutMs,
    );
  }

  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
    timeoutMs = 15_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
