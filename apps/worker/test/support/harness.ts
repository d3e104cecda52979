import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { encryptHeaders } from '@teapot/config';
import { createDatabase, type Database, type Run } from '@teapot/db';
import { createTestDatabase, type TestDatabase } from '@teapot/db/testing';
import { deleteRedisPrefix } from '@teapot/jobs';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One test file's isolated world: its own database and its own Redis key prefix. */
export interface TestWorld {
  databaseUrl: string;
  prefix: string;
  secretKey: Buffer;
  db: Database;
  /** Environment for a worker in this world; overrides win. */
  env(overrides?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function createWorld(): Promise<TestWorld> {
  const testDb: TestDatabase = await createTestDatabase();
  const prefix = `teapot-test-${randomUUID()}`;
  const secretKey = randomBytes(32);
  const db = createDatabase(testDb.url, { max: 4 });
  return {
    databaseUrl: testDb.url,
    prefix,
    secretKey,
    db,
    env: (overrides = {}) => ({
      DATABASE_URL: testDb.url,
      REDIS_URL,
      TEAPOT_REDIS_PREFIX: prefix,
      TEAPOT_SECRET_KEY: secretKey.toString('hex'),
      LOG_LEVEL: process.env.TEAPOT_TEST_LOG_LEVEL ?? 'warn',
      SCHEDULER_TICK_MS: '200',
      WORKER_LOCK_DURATION_MS: '3000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      ENDPOINT_LOCK_TTL_MS: '2000',
      ENDPOINT_BUSY_RETRY_MS: '200',
      SHUTDOWN_GRACE_MS: '3000',
      ...overrides,
    }),
    async close() {
      await db.close();
      await testDb.drop();
      await deleteRedisPrefix(REDIS_URL, prefix);
    },
  };
}

export interface EndpointSeed {
  name?: string;
  baseUrl: string;
  model?: string;
  /** Stored encrypted, as the API stores them; the worker must decrypt them to send them. */
  headers?: Record<string, string>;
}

export async function seedEndpoint(world: TestWorld, seed: EndpointSeed): Promise<string> {
  const endpoint = await world.db.prisma.endpoint.create({
    data: {
      name: seed.name ?? `endpoint-${randomUUID()}`,
      baseUrl: seed.baseUrl,
      apiKind: 'chat',
      model: seed.model ?? 'llama-8b',
      authHeadersEnc: seed.headers ? new Uint8Array(encryptHeaders(seed.headers, world.secretKey)) : null,
      authHeaderNames: Object.keys(seed.headers ?? {}),
    },
  });
  await world.db.prisma.servingConfig.create({
    data: {
      endpointId: endpoint.id,
      version: 1,
      engine: 'teapot-simulator',
      gpuModel: 'h100-sxm',
      weightQuant: 'fp16',
    },
  });
  return endpoint.id;
}

export interface ProfileSeed {
  requests?: number;
  concurrency?: number;
  inputTokens?: number;
  outputTokens?: number;
  intervalS?: number | null;
  cron?: string | null;
  jitterS?: number;
  enabled?: boolean;
  stallTimeoutMs?: number;
  timeoutMs?: number;
}

export async function seedProfile(
  world: TestWorld,
  endpointId: string,
  seed: ProfileSeed = {},
): Promise<string> {
  const profile = await world.db.prisma.profile.create({
    data: {
      name: `profile-${randomUUID()}`,
      endpointId,
      workload: {
        kind: 'synthetic',
        inputTokens: seed.inputTokens ?? 32,
        outputTokens: seed.outputTokens ?? 20,
      },
      load: { kind: 'closed', concurrency: seed.concurrency ?? 2 },
      requestCount: seed.requests ?? 10,
      seed: 7,
      timeoutMs: seed.timeoutMs ?? 20_000,
      stallTimeoutMs: seed.stallTimeoutMs ?? 2_000,
      scheduleIntervalS: seed.intervalS === undefined ? null : seed.intervalS,
      scheduleCron: seed.cron ?? null,
      scheduleJitterS: seed.jitterS ?? 0,
      enabled: seed.enabled ?? true,
    },
  });
  return profile.id;
}

/** A manual run as the API creates it (queued row with the profile snapshot); enqueue it separately. */
export async function createManualRun(world: TestWorld, profileId: string): Promise<string> {
  const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
  const config = await world.db.prisma.servingConfig.findFirst({
    where: { endpointId: profile.endpointId },
    orderBy: { version: 'desc' },
  });
  const run = await world.db.prisma.run.create({
    data: {
      endpointId: profile.endpointId,
      configId: config?.id ?? null,
      profileId,
      profileSnapshot: JSON.parse(JSON.stringify(profile)),
      trigger: 'manual',
    },
  });
  return run.id;
}

const FINAL_STATUSES: readonly string[] = ['succeeded', 'partial', 'failed', 'aborted'];

/** The run's row once it reached a final status. */
export function waitForRunToFinish(world: TestWorld, runId: string, timeoutMs = 30_000): Promise<Run> {
  return waitFor(
    `run ${runId} to finish`,
    async () => {
      const row = await world.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
      return FINAL_STATUSES.includes(row.status) ? row : null;
    },
    timeoutMs,
  );
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
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
    this.child = spawn(process.execPath, ['-r', path.join(__dirname, 'register.js'), main], {
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
