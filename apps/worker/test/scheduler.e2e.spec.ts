import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { parseProfileSnapshot, QUEUE_NAMES, snapshotOf, type RunJobData } from '@teapot/contracts';
import {
  ProfileSchedule,
  RetentionService,
  RunReaper,
  SchedulerService,
  createWorkerApp,
  slotKey,
} from '../src';
import { REDIS_URL, seedEndpoint, seedProfile, TcpProxy } from '@teapot/testing';
import { createWorld, type WorkerWorld } from './support/harness';

/** A clock the test moves by hand. */
class PinnedClock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

describe('scheduler (two schedulers on one database and Redis, pinned clock)', () => {
  let world: WorkerWorld;
  let queue: Queue<RunJobData>;
  let endpointId: string;
  const apps: INestApplicationContext[] = [];
  const clock = new PinnedClock(Date.now());

  async function workerApp(
    id: string,
    overrides: Record<string, string> = {},
  ): Promise<INestApplicationContext> {
    const app = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: id,
        SCHEDULER_TICK_MS: '1000',
        ...overrides,
      }),
      clock,
      logs: false,
      autoStart: false,
    });
    apps.push(app);
    return app;
  }
  const scheduler = async (id: string) => (await workerApp(id)).get(SchedulerService);

  const runsOf = (profileId: string) =>
    world.db.prisma.run.findMany({ where: { profileId }, orderBy: { queuedAt: 'asc' } });
  /** By slot: a skipped slot's row is queued at its slot time, which the pinned clock puts ahead of the database's. */
  const slotsOf = async (profileId: string) =>
    (await runsOf(profileId)).sort((a, b) => a.slotKey!.localeCompare(b.slotKey!));

  beforeAll(async () => {
    world = await createWorld();
    queue = world.queue<RunJobData>(QUEUE_NAMES.runs);
    endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await world?.close();
  });

  it('enqueues one run and one job per slot, however many schedulers tick', async () => {
    const profileId = await seedProfile(world, endpointId, { intervalS: 60 });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const slot = Math.ceil((profile.createdAt.getTime() + 1) / 60_000) * 60_000;
    const [a, b] = [await scheduler('scheduler-a'), await scheduler('scheduler-b')];

    clock.ms = slot - 5_000;
    await Promise.all([a.tick(), b.tick()]);
    expect(await runsOf(profileId)).toHaveLength(0);

    clock.ms = slot + 5;
    const reports = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(reports.filter((r) => r.ok).length).toBeGreaterThanOrEqual(2);
    const runs = await runsOf(profileId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      slotKey: slotKey(profileId, slot),
      status: 'queued',
      trigger: 'schedule',
      endpointId,
      attempts: 0,
    });
    const config = await world.db.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } });
    expect(runs[0].configId).toBe(config.id);
    expect(runs[0].profileSnapshot).toEqual(JSON.parse(JSON.stringify(snapshotOf(profile))));
    expect(parseProfileSnapshot(runs[0].profileSnapshot)).toMatchObject({
      id: profileId,
      scheduleIntervalS: 60,
    });
    const job = await queue.getJob(slotKey(profileId, slot));
    expect(job?.data).toEqual({ runId: runs[0].id });

    clock.ms = slot + 60_000 + 5;
    await Promise.all([a.tick(), b.tick()]);
    const next = await runsOf(profileId);
    expect(next.map((run) => run.slotKey)).toEqual([
      slotKey(profileId, slot),
      slotKey(profileId, slot + 60_000),
    ]);
  });

  it('after downtime enqueues only the latest missed slot and records the others as skipped', async () => {
    const profileId = await seedProfile(world, endpointId, { intervalS: 60 });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const first = Math.ceil((profile.createdAt.getTime() + 1) / 60_000) * 60_000;
    const a = await scheduler('scheduler-c');
    clock.ms = first + 5;
    await a.tick();
    // Down for ten slots; a fresh scheduler (as after a restart) and the old one both catch up.
    clock.ms = first + 10 * 60_000 + 5;
    const restarted = await scheduler('scheduler-d');
    await Promise.all([restarted.tick(), a.tick()]);
    const runs = await slotsOf(profileId);
    const slots = Array.from({ length: 11 }, (_, i) => slotKey(profileId, first + i * 60_000));
    expect(runs.map((run) => run.slotKey)).toEqual(slots);
    expect(runs.map((run) => run.status)).toEqual(['queued', ...Array(9).fill('aborted'), 'queued']);
    for (const skipped of runs.slice(1, 10)) {
      expect(skipped).toMatchObject({ errorClass: 'stopped', attempts: 0 });
      expect(skipped.error).toMatch(/^skipped: not queued in time: no scheduler ticked at its due time/);
      // No job: nothing measures a skipped slot.
      expect(await queue.getJob(skipped.slotKey!)).toBeUndefined();
    }
  });

  /**
   * A new profile every 60 s, its first slot, and a scheduler whose database or Redis (`overrides`)
   * is reached through a proxy the test cuts; it has ticked the first slot.
   */
  async function outageScheduler(id: string, overrides: Record<string, string>) {
    const profileId = await seedProfile(world, endpointId, { intervalS: 60 });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const first = Math.ceil((profile.createdAt.getTime() + 1) / 60_000) * 60_000;
    const scheduler = (await workerApp(id, overrides)).get(SchedulerService);
    clock.ms = first + 5;
    expect((await scheduler.tick()).ok).toBe(true);
    /** The rows of the first five slots, in slot order, with their statuses. */
    const fiveSlots = async (statuses: string[]) => {
      const runs = await slotsOf(profileId);
      expect(runs.map((run) => run.slotKey)).toEqual(
        Array.from({ length: 5 }, (_, i) => slotKey(profileId, first + i * 60_000)),
      );
      expect(runs.map((run) => run.status)).toEqual(statuses);
      return runs;
    };
    return { profileId, first, scheduler, fiveSlots };
  }

  it('after a database outage queues the latest missed slot and records the others with the reason', async () => {
    const url = new URL(world.databaseUrl);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(await proxy.start());
    try {
      const outage = await outageScheduler('scheduler-outage', { DATABASE_URL: url.toString() });
      await proxy.cut();
      for (let slot = 1; slot <= 4; slot++) {
        clock.ms = outage.first + slot * 60_000 + 5;
        expect((await outage.scheduler.tick()).ok).toBe(false);
      }
      await proxy.restore();
      clock.ms = outage.first + 4 * 60_000 + 500;
      const report = await outage.scheduler.tick();
      expect(report.ok).toBe(true);
      const runs = await outage.fiveSlots(['queued', 'aborted', 'aborted', 'aborted', 'queued']);
      for (const skipped of runs.slice(1, 4))
        expect(skipped.error).toMatch(
          /^skipped: not queued in time: the scheduler could not reach the database or Redis \(.+\)$/,
        );
      expect(await queue.getJob(slotKey(outage.profileId, outage.first + 4 * 60_000))).toBeDefined();
    } finally {
      await proxy.close();
    }
  });

  it('fails a tick within the query timeout when the database goes silent, and catches up after', async () => {
    const url = new URL(world.databaseUrl);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(await proxy.start());
    try {
      const outage = await outageScheduler('scheduler-silent-db', {
        DATABASE_URL: url.toString(),
        DATABASE_QUERY_TIMEOUT_MS: '1500',
      });
      // Nothing is refused or reset: without a query timeout this tick would never end, and every
      // later tick would be skipped as "the previous one still running".
      proxy.blackhole();
      clock.ms = outage.first + 60_000 + 5;
      expect((await outage.scheduler.tick()).ok).toBe(false);
      await proxy.restore();
      clock.ms = outage.first + 2 * 60_000 + 5;
      expect((await outage.scheduler.tick()).ok).toBe(true);
      const runs = await slotsOf(outage.profileId);
      expect(runs.map((run) => run.status)).toEqual(['queued', 'aborted', 'queued']);
      expect(runs[1].error).toMatch(
        /^skipped: not queued in time: the scheduler could not reach the database/,
      );
    } finally {
      await proxy.close();
    }
  });

  it('after a Redis outage queues the latest missed slot and records the others with the reason', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    const redisUrl = `redis://127.0.0.1:${await proxy.start()}`;
    try {
      const outage = await outageScheduler('scheduler-redis-outage', { REDIS_URL: redisUrl });
      await proxy.cut();
      // The tick of slot 1 inserts its run and waits for Redis to add its job; the next ones cannot run.
      clock.ms = outage.first + 60_000 + 5;
      const waiting = outage.scheduler.tick();
      for (const slot of [2, 3]) {
        clock.ms = outage.first + slot * 60_000 + 5;
        expect((await outage.scheduler.tick()).ok).toBe(false);
      }
      // Longer than the scheduler's look-ahead (two 1 s ticks), as a real outage is.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await proxy.restore();
      expect((await waiting).ok).toBe(true);
      clock.ms = outage.first + 4 * 60_000 + 5;
      // Other tests' profiles are due too: the counts are this profile's rows below.
      expect((await outage.scheduler.tick()).ok).toBe(true);
      const runs = await outage.fiveSlots(['queued', 'queued', 'aborted', 'aborted', 'queued']);
      for (const skipped of runs.slice(2, 4))
        expect(skipped.error).toMatch(
          /^skipped: not queued in time: the scheduler could not reach the database or Redis \(a tick waited \d+\.\d s for them/,
        );
      for (const queued of [1, 4])
        expect(await queue.getJob(slotKey(outage.profileId, outage.first + queued * 60_000))).toBeDefined();
    } finally {
      await proxy.close();
    }
  });

  it('enqueues a slot due before the next tick as a job delayed to its due time', async () => {
    const profileId = await seedProfile(world, endpointId, { intervalS: 3600, jitterS: 600 });
    const schedule = new ProfileSchedule(profileId, { cron: null, intervalS: 3600, jitterS: 600 });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    let slot = schedule.slotAfter(profile.createdAt.getTime());
    const a = await scheduler('scheduler-e');
    // The horizon is two ticks (1 s each here): further out, nothing is enqueued yet.
    clock.ms = schedule.dueAt(slot) - 2_001;
    await a.tick();
    expect(await runsOf(profileId)).toHaveLength(0);
    clock.ms = schedule.dueAt(slot) - 400;
    // The pinned clock stands still while the tick runs: its due time maps to wall time when the
    // tick enqueues, somewhere between these two readings (far apart only on a loaded machine).
    const wallDueEarliest = Date.now() + 400;
    await a.tick();
    const wallDueLatest = Date.now() + 400;
    const job = await queue.getJob(slotKey(profileId, slot));
    expect(await job?.getState()).toBe('delayed');
    // Runnable at its due time: BullMQ adds the delay to the job's own timestamp.
    const runnableAt = job!.timestamp + job!.opts.delay!;
    expect(runnableAt).toBeGreaterThanOrEqual(wallDueEarliest);
    expect(runnableAt).toBeLessThanOrEqual(wallDueLatest);
    slot = schedule.slotAfter(slot);
    expect(await queue.getJob(slotKey(profileId, slot))).toBeUndefined();
  });

  it('reads cron schedules and leaves disabled profiles and archived endpoints alone', async () => {
    const cronProfile = await seedProfile(world, endpointId, { cron: '*/5 * * * *', intervalS: null });
    const disabled = await seedProfile(world, endpointId, { intervalS: 60, enabled: false });
    const broken = await seedProfile(world, endpointId, { cron: 'every full moon', intervalS: null });
    const archivedEndpoint = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const orphan = await seedProfile(world, archivedEndpoint, { intervalS: 60 });
    await world.db.prisma.endpoint.update({
      where: { id: archivedEndpoint },
      data: { archivedAt: new Date() },
    });
    const created = (await world.db.prisma.profile.findUniqueOrThrow({ where: { id: cronProfile } }))
      .createdAt;
    const slot = Math.ceil((created.getTime() + 1) / 300_000) * 300_000;
    const a = await scheduler('scheduler-f');
    clock.ms = slot + 60_000;
    expect((await a.tick()).ok).toBe(true);
    expect((await runsOf(cronProfile)).map((run) => run.slotKey)).toEqual([slotKey(cronProfile, slot)]);
    expect(await runsOf(broken)).toHaveLength(0);
    expect(await runsOf(disabled)).toHaveLength(0);
    expect(await runsOf(orphan)).toHaveLength(0);
  });

  it('enqueues 1,000 profiles due at the same second in one tick', async () => {
    const bulkEndpoint = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const createdAt = new Date(Math.floor(clock.ms / 60_000) * 60_000 + 1);
    await world.db.prisma.profile.createMany({
      data: Array.from({ length: 1000 }, (_, i) => ({
        name: `bulk-${i}`,
        endpointId: bulkEndpoint,
        workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 20 },
        load: { kind: 'closed', concurrency: 1 },
        requestCount: 1,
        scheduleIntervalS: 60,
        createdAt,
        updatedAt: createdAt,
      })),
    });
    const a = await scheduler('scheduler-g');
    const slot = createdAt.getTime() - 1 + 60_000;
    clock.ms = slot - 30_000;
    await a.tick();
    clock.ms = slot + 5;
    const report = await a.tick();
    expect(report.ok).toBe(true);
    // Profiles of the earlier tests are due at this slot too.
    expect(report.enqueued).toBeGreaterThanOrEqual(1000);
    const count = await world.db.prisma.run.count({
      where: { endpointId: bulkEndpoint, slotKey: { endsWith: `@${slot}` } },
    });
    expect(count).toBe(1000);
    // Generous for a shared 2-core machine; the scheduler benchmark measures it properly.
    expect(report.durationMs).toBeLessThan(5_000);
  });

  it('repairs runs whose job is gone: running ones end aborted, queued ones are enqueued again', async () => {
    const app = await workerApp('reaper');
    const profileId = await seedProfile(world, endpointId);
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const base = {
      endpointId,
      profileId,
      profileSnapshot: snapshotOf(profile),
      trigger: 'manual' as const,
    };
    const hourAgo = new Date(Date.now() - 3_600_000);
    const orphaned = await world.db.prisma.run.create({
      data: {
        ...base,
        status: 'running',
        startedAt: hourAgo,
        queuedAt: hourAgo,
        workerId: 'ghost',
        attempts: 1,
      },
    });
    const lost = await world.db.prisma.run.create({ data: { ...base, queuedAt: hourAgo } });
    // Every worker also reaps on boot and on an interval, so this pass may share the work with those.
    await app.get(RunReaper).reap(Date.now());
    const ended = await world.db.prisma.run.findUniqueOrThrow({ where: { id: orphaned.id } });
    expect(ended.status).toBe('aborted');
    expect(ended.error).toMatch(/worker ghost stopped mid-run/);
    expect(ended.errorClass).toBe('worker_lost');
    expect((await queue.getJob(lost.id))?.data).toEqual({ runId: lost.id });
    expect((await world.db.prisma.run.findUniqueOrThrow({ where: { id: lost.id } })).status).toBe('queued');
    // Nothing left to repair: a second pass changes nothing.
    expect(await app.get(RunReaper).reap(Date.now())).toEqual({ aborted: 0, requeued: 0, failed: 0 });
  });

  it('runs each retention slot on one worker only', async () => {
    const [a, b] = [
      await workerApp('retention-a', { RETENTION_WEBHOOK_DAYS: '7' }),
      await workerApp('retention-b', { RETENTION_WEBHOOK_DAYS: '7' }),
    ];
    const at = Date.UTC(2031, 0, 1, 4, 0, 0);
    const first = await a.get(RetentionService).runDue(at);
    expect(first?.cutoff).toEqual(new Date(at - 30 * 86_400_000));
    // The webhook history has its own setting.
    expect(first?.webhooks.cutoff).toEqual(new Date(at - 7 * 86_400_000));
    expect(await b.get(RetentionService).runDue(at + 60_000)).toBeNull();
    expect(await a.get(RetentionService).runDue(at + 120_000)).toBeNull();
    expect(await b.get(RetentionService).runDue(at + 86_400_000)).not.toBeNull();
  });

  it('gives a retention slot back when the drop fails, so another check retries it', async () => {
    // The worker refuses to start on an unreachable database, so the drop fails after start.
    const broken = await workerApp('retention-broken');
    jest.spyOn(broken.get(RetentionService), 'dropOlderThan').mockRejectedValue(new Error('database down'));
    const healthy = await workerApp('retention-healthy');
    const at = Date.UTC(2032, 0, 1, 4, 0, 0);
    await expect(broken.get(RetentionService).runDue(at)).rejects.toThrow();
    expect(await healthy.get(RetentionService).runDue(at + 1_000)).not.toBeNull();
  });
});
