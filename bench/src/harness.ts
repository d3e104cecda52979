/**
 * What the benchmarks share: a world per benchmark, seeding endpoints and queueing runs the way the
 * API does, and the worker and simulator as child processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { cpus, loadavg, setPriority } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isFinalRunStatus } from '@teapot/contracts';
import { createQueuedRun } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { createTestWorld, freePort, waitFor, type TestWorld } from '@teapot/testing';

export const REPO = join(__dirname, '..', '..');
const WORKER_MAIN = join(REPO, 'apps', 'worker', 'dist', 'main.js');
const SIMULATOR_MAIN = join(REPO, 'packages', 'simulator', 'dist', 'main.js');

/** One benchmark's isolated world (its own database and Redis prefix, dropped at the end) and its run queue. */
export interface BenchWorld extends TestWorld {
  producer: RunQueueProducer;
  /** Environment of a worker process in this world; overrides win. */
  workerEnv(overrides?: Record<string, string>): Record<string, string>;
}

export async function createWorld(): Promise<BenchWorld> {
  const world = await createTestWorld();
  const producer = new RunQueueProducer({ redis: world.redisUrl, prefix: world.prefix });
  return {
    ...world,
    producer,
    workerEnv: (overrides = {}) =>
      world.env({
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'info',
        WORKER_QUEUES: 'runs',
        ...overrides,
      }),
    async close() {
      await producer.close();
      await world.close();
    },
  };
}

export interface ProfileSpec {
  concurrency: number;
  requests?: number;
  durationS?: number;
  inputTokens: number;
  outputTokens: number;
  /** Relative spread of lengths (0 = all equal). */
  lengthJitter?: number;
}

/** Endpoints (distinct names, one serving configuration each) with one unscheduled profile each. */
export async function seedEndpoints(
  world: BenchWorld,
  count: number,
  baseUrl: string,
  profile: ProfileSpec,
): Promise<Array<{ endpointId: string; profileId: string }>> {
  const seeded = [];
  for (let i = 0; i < count; i++) {
    const endpoint = await world.db.prisma.endpoint.create({
      data: { name: `bench-endpoint-${randomUUID()}`, baseUrl, apiKind: 'chat', model: 'llama-8b' },
    });
    await world.db.prisma.servingConfig.create({
      data: { endpointId: endpoint.id, version: 1, engine: 'teapot-sim', gpuModel: 'H200', gpuCount: 8 },
    });
    const created = await world.db.prisma.profile.create({
      data: {
        name: `bench-profile-${i}`,
        endpointId: endpoint.id,
        workload: {
          kind: 'synthetic',
          inputTokens: profile.inputTokens,
          outputTokens: profile.outputTokens,
          lengthJitter: profile.lengthJitter ?? 0,
        },
        load: { kind: 'closed', concurrency: profile.concurrency },
        requestCount: profile.requests ?? null,
        durationS: profile.durationS ?? null,
        seed: i + 1,
        timeoutMs: 120_000,
        stallTimeoutMs: 30_000,
      },
    });
    seeded.push({ endpointId: endpoint.id, profileId: created.id });
  }
  return seeded;
}

/** Queued runs as POST /runs creates them (row with the profile snapshot, then the job). */
export async function queueRuns(world: BenchWorld, profileIds: string[]): Promise<string[]> {
  const runIds: string[] = [];
  for (const profileId of profileIds) {
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    runIds.push((await createQueuedRun(world.db.prisma, profile, 'manual')).id);
  }
  await world.producer.enqueueRuns(runIds.map((runId) => ({ runId })));
  return runIds;
}

export interface FinishedRun {
  id: string;
  status: string;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  monotonicAnchorNs: bigint | null;
  outputTokensPerS: number | null;
  clientSaturated: boolean | null;
  eventLoopDelayP99Ms: number | null;
  workerId: string | null;
}

/** Polls until every run is final; throws with the processes' last lines when one exits or it takes too long. */
export async function waitForRuns(
  world: BenchWorld,
  runIds: string[],
  timeoutMs: number,
  processes: ServiceProcess[] = [],
): Promise<FinishedRun[]> {
  try {
    return await waitFor(
      `every run final within ${timeoutMs / 1000} s`,
      async () => {
        const runs = await world.db.prisma.run.findMany({
          where: { id: { in: runIds } },
          select: {
            id: true,
            status: true,
            error: true,
            startedAt: true,
            finishedAt: true,
            monotonicAnchorNs: true,
            outputTokensPerS: true,
            clientSaturated: true,
            eventLoopDelayP99Ms: true,
            workerId: true,
          },
        });
        if (runs.every((run) => isFinalRunStatus(run.status))) return runs;
        const dead = processes.find((child) => !child.running);
        if (dead) throw new Error(`${dead.name} exited`);
        return null;
      },
      timeoutMs,
    );
  } catch (error) {
    // Either way, what the processes said last is what explains it.
    throw new Error(
      `${(error as Error).message}:\n${processes.map((child) => child.recentOutput()).join('\n')}`,
    );
  }
}

/** A service in its own process (worker or simulator), its output kept for error messages. */
export class ServiceProcess {
  readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiters = new Set<(line: string) => void>();
  private exited = false;

  constructor(
    readonly name: string,
    script: string,
    args: string[],
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.once('exit', () => (this.exited = true));
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        this.lines.push(line);
        if (this.lines.length > 30) this.lines.shift();
        for (const waiter of this.waiters) waiter(line);
      });
    }
  }

  get running(): boolean {
    return !this.exited;
  }

  recentOutput(): string {
    return this.lines.map((line) => `  [${this.name}] ${line}`).join('\n');
  }

  waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.recentOutput()}`),
        );
      }, timeoutMs);
      const waiter = (line: string) => {
        const match = pattern.exec(line);
        if (!match) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(match);
      };
      this.waiters.add(waiter);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(timer);
  }
}

export async function startWorkerProcess(
  world: BenchWorld,
  workerId: string,
  overrides: Record<string, string> = {},
): Promise<ServiceProcess> {
  const worker = new ServiceProcess(
    workerId,
    WORKER_MAIN,
    [],
    world.workerEnv({ WORKER_ID: workerId, ...overrides }),
  );
  await worker.waitForLine(new RegExp(`worker ${workerId} started`), 60_000);
  return worker;
}

/** The standalone simulator (packages/simulator/dist/main.js) on a free port. */
export async function startSimulatorProcess(
  args: string[],
): Promise<{ process: ServiceProcess; baseUrl: string }> {
  const port = await freePort();
  const simulator = new ServiceProcess('simulator', SIMULATOR_MAIN, ['--port', String(port), ...args], {
    PATH: process.env.PATH ?? '',
  });
  const [, baseUrl] = await simulator.waitForLine(/^teapot-sim listening on (\S+):/, 15_000);
  return { process: simulator, baseUrl };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function machineLine(loadBefore: number[], startedAt: number): string {
  return (
    `machine: ${cpus().length} cores, load average ${loadBefore[0].toFixed(2)} before, ${loadavg()[0].toFixed(2)} after; ` +
    `${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`
  );
}

/**
 * A fixed-width text table: the first column padded on the right, the others on the left, two
 * spaces apart. Each column's width is given once, for its title and for every row's cell.
 */
export function textTable(columns: ReadonlyArray<readonly [title: string, width: number]>): {
  header: string;
  line(cells: readonly string[]): string;
} {
  const line = (cells: readonly string[]): string => {
    if (cells.length !== columns.length)
      throw new Error(`a row of ${cells.length} cells in a table of ${columns.length} columns`);
    return cells
      .map((cell, i) => (i === 0 ? cell.padEnd(columns[i][1]) : cell.padStart(columns[i][1])))
      .join('  ');
  };
  return { header: line(columns.map(([title]) => title)), line };
}

/** `--name N` from the command line: a positive integer, or `fallback` when absent. */
export function positiveIntOption(name: string, fallback: number): number {
  return intOption(name, fallback, 1);
}

/** `--name N` from the command line: an integer of at least `min`, or `fallback` when absent. */
export function intOption(name: string, fallback: number, min: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} needs an integer of at least ${min}`);
  return value;
}

/**
 * Gives every thread of process `pid` the nice value `level`. On Linux a thread's nice is its own, so
 * the process id alone would reach only its main thread; elsewhere that is all there is to set.
 */
export function reniceProcess(pid: number, level: number): void {
  let threads = [pid];
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    // not Linux: the process's priority is its threads'
  }
  for (const tid of threads) setPriority(tid, level);
}

/** The median; of an even count, the mean of the two middle values. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
