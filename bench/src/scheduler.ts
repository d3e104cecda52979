/**
 * Scheduler: 1,000 enabled profiles every 60 s. Is every slot's job in Redis (and runnable) within
 * 1 s of its due time, and how much of a core do the ticks take? The real SchedulerService.tick()
 * of the worker app runs every SCHEDULER_TICK_MS (as the app's own timer would; no processor, the
 * endpoints are unroutable addresses nothing ever calls) across two minute boundaries. The worker's
 * injected clock is shifted so the first boundary comes a few seconds after start.
 *
 * When is a job "in Redis": the id of the `added` event BullMQ writes to the queue's event stream
 * in the same script that stores the job, which is the Redis server's clock (this machine's).
 * A slot's job may land before its due time (the tick looks two ticks ahead and adds it delayed), so
 * it is runnable at max(in Redis, BullMQ timestamp + delay).
 *
 * Baseline, in the same run: a naive tick that lists the profiles and then, for each due one, does
 * one INSERT and one queue add, at its due time, one after another.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench scheduler
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Database } from '@teapot/db';
import { insertQueuedRunNaively, intervalProfiles } from '@teapot/db/testing';
import { RunQueueProducer, createRedis } from '@teapot/jobs';
import { REDIS_URL, createTestWorld, deleteRedisPrefix } from '@teapot/testing';
import { percentileSummary, type PercentileSummary } from '@teapot/measure';
import { SchedulerService, createWorkerApp, parseSlotKey, type Clock } from '@teapot/worker';
import { machineLine, sleep, textTable } from './harness';

const PROFILES = 1_000;
const ENDPOINTS = 100;
const INTERVAL_MS = 60_000;
const TICK_MS = 1_000;
/** The shifted clock starts this long before a minute boundary. */
const LEAD_MS = 5_000;
const BOUNDARIES = 2;
const TARGET_LATE_MS = 1_000;

/** Wall-clock time shifted by a settable offset: the worker's injected time source. */
class ShiftedClock implements Clock {
  offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Shifts so that the clock reads LEAD_MS before a minute boundary; returns that boundary. */
  startBeforeBoundary(): number {
    const real = Date.now();
    let boundary = Math.ceil(real / INTERVAL_MS) * INTERVAL_MS;
    if (boundary - LEAD_MS < real) boundary += INTERVAL_MS;
    this.offsetMs = boundary - LEAD_MS - real;
    return boundary;
  }
}

interface TickSample {
  due: number;
  enqueued: number;
  wallMs: number;
  cpuMs: number;
}

/** Calls `tick` every TICK_MS (skipping while one is still running) until `untilMs` on `clock`, timing each call. */
async function driveTicks(
  clock: Clock,
  untilMs: number,
  tick: () => Promise<{ due: number; enqueued: number }>,
): Promise<{ ticks: TickSample[]; windowS: number; processCpuMs: number }> {
  const ticks: TickSample[] = [];
  let running: Promise<void> | null = null;
  const once = () => {
    if (running) return;
    const cpu = process.cpuUsage();
    const started = performance.now();
    running = tick().then(({ due, enqueued }) => {
      const used = process.cpuUsage(cpu);
      ticks.push({
        due,
        enqueued,
        wallMs: performance.now() - started,
        cpuMs: (used.user + used.system) / 1000,
      });
      running = null;
    });
  };
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const timer = setInterval(once, TICK_MS);
  once();
  while (clock.now() < untilMs) await sleep(100);
  clearInterval(timer);
  await running;
  const cpu = process.cpuUsage(cpuStart);
  return {
    ticks,
    windowS: (performance.now() - wallStart) / 1000,
    processCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

interface SlotTiming {
  /** In Redis minus due, ms (negative: added ahead, delayed until due). */
  inRedisMs: number;
  /** Runnable minus due, ms. */
  runnableMs: number;
}

/** Every job of the queue against its slot's due time, in real time. */
async function slotTimings(producer: RunQueueProducer, offsetMs: number): Promise<SlotTiming[]> {
  const redis = createRedis(REDIS_URL);
  const events = await redis.xrange(producer.queue.keys.events, '-', '+').finally(() => redis.quit());
  const addedAt = new Map<string, number>();
  for (const [id, fields] of events) {
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    if (field('event') === 'added' && !addedAt.has(field('jobId')))
      addedAt.set(field('jobId'), Number(id.split('-')[0]));
  }
  const jobs = await producer.queue.getJobs(['delayed', 'waiting', 'active', 'prioritized', 'paused'], 0, -1);
  return jobs.map((job) => {
    const slot = parseSlotKey((job.id ?? '').replace(/^naive-/, ''));
    if (!slot) throw new Error(`job ${job.id} is not a slot job`);
    const dueMs = slot.slotMs - offsetMs;
    const inRedis = addedAt.get(job.id ?? '') ?? job.timestamp;
    return { inRedisMs: inRedis - dueMs, runnableMs: Math.max(inRedis, job.timestamp + job.delay) - dueMs };
  });
}

interface PhaseFigures {
  label: string;
  slots: number;
  inRedis: PercentileSummary;
  runnable: PercentileSummary;
  late: number;
  boundaryTicks: TickSample[];
  idleTickCpuMs: number;
  coreFraction: number;
}

function figuresOf(
  label: string,
  timings: SlotTiming[],
  drive: Awaited<ReturnType<typeof driveTicks>>,
): PhaseFigures {
  const tickCpuMs = drive.ticks.reduce((sum, tick) => sum + tick.cpuMs, 0);
  const idle = drive.ticks.filter((tick) => tick.due === 0).map((tick) => tick.cpuMs);
  const summary = (values: number[]) => {
    const described = percentileSummary(values);
    if (!described) throw new Error(`${label}: no slot was enqueued`);
    return described;
  };
  return {
    label,
    slots: timings.length,
    inRedis: summary(timings.map((t) => t.inRedisMs)),
    runnable: summary(timings.map((t) => t.runnableMs)),
    late: timings.filter((t) => t.runnableMs > TARGET_LATE_MS).length,
    boundaryTicks: drive.ticks.filter((tick) => tick.due > 0),
    idleTickCpuMs: percentileSummary(idle)?.p50 ?? 0,
    coreFraction: tickCpuMs / 1000 / drive.windowS,
  };
}

async function seed(db: Database, changedAt: Date): Promise<void> {
  const endpoints = Array.from({ length: ENDPOINTS }, (_, i) => ({
    id: randomUUID(),
    // TEST-NET-1 (RFC 5737): never routed, and nothing runs the jobs anyway.
    name: `unroutable-${i}`,
    baseUrl: `http://192.0.2.${(i % 250) + 1}:8000/v1`,
    apiKind: 'chat' as const,
    model: 'llama-8b',
  }));
  await db.prisma.endpoint.createMany({ data: endpoints });
  await db.prisma.profile.createMany({
    data: Array.from({ length: PROFILES }, (_, i) => ({
      name: `every-minute-${i}`,
      endpointId: endpoints[i % ENDPOINTS].id,
      workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 128 },
      load: { kind: 'closed', concurrency: 4 },
      requestCount: 20,
      scheduleIntervalS: INTERVAL_MS / 1000,
      createdAt: changedAt,
      updatedAt: changedAt,
    })),
  });
}

async function measureTeapot(db: Database, databaseUrl: string, prefix: string): Promise<PhaseFigures> {
  const clock = new ShiftedClock();
  const app = await createWorkerApp({
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      TEAPOT_REDIS_PREFIX: prefix,
      TEAPOT_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      WORKER_QUEUES: 'schedule',
      SCHEDULER_TICK_MS: String(TICK_MS),
      REAPER_INTERVAL_MS: '3600000',
    },
    clock,
    logs: false,
    autoStart: false,
  });
  const producer = new RunQueueProducer({ redis: REDIS_URL, prefix });
  try {
    const scheduler = app.get(SchedulerService);
    const boundary = clock.startBeforeBoundary();
    // Changed between the previous boundary and the first one: that one is the first slot, no catch-up.
    await seed(db, new Date(boundary - INTERVAL_MS / 2));
    const drive = await driveTicks(clock, boundary + (BOUNDARIES - 1) * INTERVAL_MS + 2_000, () =>
      scheduler.tick(),
    );
    return figuresOf('teapot scheduler tick', await slotTimings(producer, clock.offsetMs), drive);
  } finally {
    await producer.close();
    await app.close();
  }
}

/** The tick as first written: list, then per due profile one INSERT and one queue add, in turn, once due. */
async function measureNaive(db: Database, prefix: string): Promise<PhaseFigures> {
  const clock = new ShiftedClock();
  const producer = new RunQueueProducer({ redis: REDIS_URL, prefix });
  try {
    const boundary = clock.startBeforeBoundary();
    const lastSlot = new Map<string, number>();
    const tick = async () => {
      const now = clock.now();
      let due = 0;
      for (const row of await intervalProfiles(db)) {
        const slot = Math.floor(now / (row.intervalS * 1000)) * row.intervalS * 1000;
        if (!lastSlot.has(row.id)) lastSlot.set(row.id, slot);
        if (slot <= (lastSlot.get(row.id) ?? slot)) continue;
        const jobId = `naive-${row.id}@${slot}`;
        await producer.enqueueRun(await insertQueuedRunNaively(db, row.id, jobId), { jobId });
        lastSlot.set(row.id, slot);
        due++;
      }
      return { due, enqueued: due };
    };
    const drive = await driveTicks(clock, boundary + 2_000, tick);
    // A naive tick can still be working through the boundary's slots after the window: let it finish.
    while ((await producer.queue.count()) < PROFILES && clock.now() < boundary + 60_000) await sleep(100);
    return figuresOf('naive (1 INSERT + 1 add each)', await slotTimings(producer, clock.offsetMs), drive);
  } finally {
    await producer.close();
  }
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const world = await createTestWorld();
  const naivePrefix = `${world.prefix}-naive`;
  let teapot: PhaseFigures;
  let naive: PhaseFigures;
  try {
    teapot = await measureTeapot(world.db, world.databaseUrl, world.prefix);
    process.stderr.write(`${row(teapot)}\n`);
    naive = await measureNaive(world.db, naivePrefix);
    process.stderr.write(`${row(naive)}\n`);
  } finally {
    await world.close();
    await deleteRedisPrefix(REDIS_URL, naivePrefix);
  }
  const boundaryCpu = (f: PhaseFigures) => Math.max(0, ...f.boundaryTicks.map((tick) => tick.cpuMs));
  const verdict = teapot.late === 0 && teapot.slots === PROFILES * BOUNDARIES ? 'met' : 'MISSED';
  const lines = [
    '',
    `Scheduler: ${PROFILES} enabled profiles every ${INTERVAL_MS / 1000} s on ${ENDPOINTS} endpoints, tick every ${TICK_MS} ms, ` +
      `${BOUNDARIES} minute boundaries (worker clock shifted so the first comes ${LEAD_MS / 1000} s after start); processor off`,
    'Slot timing, ms relative to the due time (negative = in Redis ahead of time, added delayed):',
    TABLE.header,
    row(teapot),
    row(naive),
    `ratio naive/teapot: runnable-late P99 ${ratio(naive.runnable.p99, teapot.runnable.p99)}, ` +
      `max ${ratio(naive.runnable.max, teapot.runnable.max)}; CPU of the boundary tick ${ratio(boundaryCpu(naive), boundaryCpu(teapot))}`,
    `target: every slot runnable within ${TARGET_LATE_MS} ms of its due time: ${verdict} ` +
      `(${teapot.slots} slots, ${teapot.late} later; worst ${teapot.runnable.max.toFixed(0)} ms)`,
    `teapot ticks: ${teapot.boundaryTicks.map((t) => `${t.enqueued} slots in ${t.wallMs.toFixed(0)} ms wall / ${t.cpuMs.toFixed(0)} ms CPU`).join(', ')}; ` +
      `idle tick ${teapot.idleTickCpuMs.toFixed(1)} ms CPU (P50); all ticks ${(teapot.coreFraction * 100).toFixed(2)}% of one core`,
    machineLine(loadBefore, startedAt),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

const TABLE = textTable([
  ['tick', 30],
  ['slots', 5],
  ['in Redis P50', 12],
  ['P99', 7],
  ['max', 7],
  ['runnable P50', 12],
  ['P99', 7],
  ['max', 7],
  [`> ${TARGET_LATE_MS} ms`, 9],
  ['boundary tick CPU ms', 20],
  ['core %', 7],
]);

function row(f: PhaseFigures): string {
  const n = (value: number) => value.toFixed(0);
  return TABLE.line([
    f.label,
    String(f.slots),
    n(f.inRedis.p50),
    n(f.inRedis.p99),
    n(f.inRedis.max),
    n(f.runnable.p50),
    n(f.runnable.p99),
    n(f.runnable.max),
    String(f.late),
    f.boundaryTicks.map((tick) => tick.cpuMs.toFixed(0)).join('+'),
    (f.coreFraction * 100).toFixed(2),
  ]);
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(1)}x` : `- (${a.toFixed(0)} vs ${b.toFixed(0)})`;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `scheduler: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
