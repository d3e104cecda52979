/**
 * Scale-out: N endpoints whose runs each last D seconds. One worker process at concurrency 1 takes
 * them one after another (about N x D); two worker processes against the same Redis and Postgres
 * share the queue (about N x D / 2). Wall time: from queueing the N runs to the last one stored.
 * The baseline of the ratio is the one-process wall time, measured in the same run.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench scaleout
 */
import { loadavg } from 'node:os';
import {
  createWorld,
  machineLine,
  queueRuns,
  seedEndpoints,
  startSimulatorProcess,
  startWorkerProcess,
  waitForRuns,
  type BenchWorld,
  type FinishedRun,
} from './harness';

const ENDPOINTS = 6;
const RUN_SECONDS = 3;

interface Phase {
  workers: number;
  wallS: number;
  runs: FinishedRun[];
}

async function runPhase(world: BenchWorld, profileIds: string[], workers: number): Promise<Phase> {
  const processes = await Promise.all(
    Array.from({ length: workers }, (_, i) =>
      startWorkerProcess(world, `scaleout-${workers}-${i + 1}`, { WORKER_CONCURRENCY: '1' }),
    ),
  );
  try {
    const started = Date.now();
    const runIds = await queueRuns(world, profileIds);
    const runs = await waitForRuns(world, runIds, 120_000, processes);
    const finishedMs = Math.max(...runs.map((run) => run.finishedAt?.getTime() ?? Date.now()));
    return { workers, wallS: (finishedMs - started) / 1000, runs };
  } finally {
    await Promise.all(processes.map((worker) => worker.stop()));
  }
}

function describePhase(phase: Phase, idealS: number): string {
  const byWorker = new Map<string, number>();
  for (const run of phase.runs)
    byWorker.set(run.workerId ?? '?', (byWorker.get(run.workerId ?? '?') ?? 0) + 1);
  const durations = phase.runs.map((run) =>
    run.startedAt && run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : NaN,
  );
  const statuses = [...new Set(phase.runs.map((run) => run.status))].join('/');
  return [
    `${phase.workers} worker process${phase.workers > 1 ? 'es' : ''}`.padEnd(20),
    `expected ~${idealS.toFixed(1)} s`.padEnd(17),
    `measured ${phase.wallS.toFixed(2)} s`.padEnd(18),
    `(${(phase.wallS / idealS).toFixed(2)}x expected)`.padEnd(20),
    `runs ${phase.runs.length} ${statuses}, each ${Math.min(...durations).toFixed(2)}-${Math.max(...durations).toFixed(2)} s;`,
    `per worker: ${[...byWorker.values()].join(' + ')}`,
  ].join(' ');
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const world = await createWorld();
  const simulator = await startSimulatorProcess(['--spin-us', '0']);
  let one: Phase;
  let two: Phase;
  try {
    const seeded = await seedEndpoints(world, ENDPOINTS, simulator.baseUrl, {
      concurrency: 2,
      durationS: RUN_SECONDS,
      inputTokens: 64,
      outputTokens: 64,
    });
    const profileIds = seeded.map((s) => s.profileId);
    one = await runPhase(world, profileIds, 1);
    process.stderr.write(`${describePhase(one, ENDPOINTS * RUN_SECONDS)}\n`);
    two = await runPhase(world, profileIds, 2);
    process.stderr.write(`${describePhase(two, (ENDPOINTS * RUN_SECONDS) / 2)}\n`);
  } finally {
    await simulator.process.stop();
    await world.close();
  }
  const lines = [
    '',
    `Scale-out: N = ${ENDPOINTS} endpoints, runs of D = ${RUN_SECONDS} s each (duration-bounded, 2 streams), ` +
      `worker concurrency 1 per process; N x D = ${ENDPOINTS * RUN_SECONDS} s`,
    describePhase(one, ENDPOINTS * RUN_SECONDS),
    describePhase(two, (ENDPOINTS * RUN_SECONDS) / 2),
    `ratio one process / two processes: ${(one.wallS / two.wallS).toFixed(2)}x (ideal 2.00x)`,
    machineLine(loadBefore, startedAt),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `scaleout: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
