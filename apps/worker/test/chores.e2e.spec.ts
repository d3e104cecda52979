import { Logger, type INestApplicationContext } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { closeInOrder, waitFor } from '@teapot/testing';
import { Client } from 'pg';
import { RetentionService, RunReaper, SchedulerService, createWorkerApp, type TickReport } from '../src';
import { ScheduledChore } from '../src/chores/scheduled-chore';
import { createWorld, type WorkerWorld } from './support/harness';

// The worker's chores as @nestjs/schedule ticks them, in apps built from the real modules. Periods
// are small, and every assertion waits for what it needs to see rather than for a number of ms.
describe('chores (ScheduleModule ticks, per role)', () => {
  let world: WorkerWorld;
  let admin: Client;
  const apps: INestApplicationContext[] = [];

  const start = async (overrides: Record<string, string>, autoStart = true) => {
    const app = await createWorkerApp({ env: world.workerEnv(overrides), logs: false, autoStart });
    apps.push(app);
    return app;
  };
  const registered = (registry: SchedulerRegistry) => ({
    intervals: registry.getIntervals().sort(),
    cronJobs: [...registry.getCronJobs().keys()],
    timeouts: registry.getTimeouts(),
  });
  /** Holds an exclusive lock on a table until the returned function is called: a query on it waits. */
  const lockTable = async (table: string) => {
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return () => admin.query('COMMIT');
  };
  const waitingOn = async (table: string) =>
    (
      await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         WHERE c.relname = $1 AND NOT l.granted`,
        [table],
      )
    ).rows[0].n;

  /** The warnings logged from now on that start with `prefix`. */
  const warningsFrom = (prefix: string) => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    return () => warnings.mock.calls.map(([message]) => String(message)).filter((m) => m.startsWith(prefix));
  };
  /** Runs `during` with the runs table renamed away: every query on it fails as Postgres says. */
  const withoutRunsTable = async (during: () => Promise<unknown>) => {
    await world.db.pool.query('ALTER TABLE runs RENAME TO runs_hidden');
    try {
      await during();
    } finally {
      await world.db.pool.query('ALTER TABLE runs_hidden RENAME TO runs');
    }
  };
  /** What the next call of a spied method returns (a pass after the ones so far). */
  const nextResult = async (spy: jest.SpyInstance) => {
    const calls = spy.mock.calls.length;
    await waitFor('the next pass', async () => spy.mock.calls.length > calls, 15_000);
    return spy.mock.results[calls].value as Promise<unknown>;
  };

  beforeAll(async () => {
    world = await createWorld();
    admin = new Client({ connectionString: world.databaseUrl });
    await admin.connect();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const app of apps.splice(0)) await app.close();
  });

  afterAll(() => closeInOrder(admin, world));

  it("registers each role's chore under its name with the env's period, and the retention cron in UTC", async () => {
    const app = await start({
      SCHEDULER_TICK_MS: '250',
      REAPER_INTERVAL_MS: '7000',
      WEBHOOK_SWEEP_INTERVAL_MS: '9000',
      RETENTION_CRON: '5 4 * * *',
    });
    const registry = app.get(SchedulerRegistry);
    expect(registered(registry)).toEqual({
      intervals: ['reaper', 'scheduler tick', 'sweep sweeper', 'verification sweep', 'webhook sweep'],
      cronJobs: ['retention'],
      timeouts: [],
    });
    const timing = (name: string) => app.get<ScheduledChore>(`chore: ${name}`).timing;
    expect(timing('scheduler tick')).toEqual({ everyMs: 250 });
    expect(timing('reaper')).toEqual({ everyMs: 7000 });
    expect(timing('webhook sweep')).toEqual({ everyMs: 9000 });
    expect(timing('verification sweep')).toEqual({ everyMs: 60_000 });
    const retention = registry.getCronJob('retention');
    expect(retention.isActive).toBe(true);
    expect(retention.nextDate().toUTC().toFormat('HH:mm:ss')).toBe('04:05:00');
  });

  it('registers only the reaper in a measuring-only worker, and nothing when AUTO_START is false', async () => {
    const measuring = await start({ WORKER_QUEUES: 'runs' });
    expect(registered(measuring.get(SchedulerRegistry))).toEqual({
      intervals: ['reaper'],
      cronJobs: [],
      timeouts: [],
    });
    const idle = await start({ WORKER_QUEUES: 'all' }, false);
    expect(registered(idle.get(SchedulerRegistry))).toEqual({ intervals: [], cronJobs: [], timeouts: [] });
  });

  it('does not enter a chore again while its previous pass is still running', async () => {
    const ticks = jest.spyOn(ScheduledChore.prototype, 'tick');
    const passes = jest.spyOn(SchedulerService.prototype, 'tick');
    const release = await lockTable('profiles');
    try {
      await start({ WORKER_QUEUES: 'schedule', SCHEDULER_TICK_MS: '50' });
      await waitFor('the boot pass to wait on the lock', async () => (await waitingOn('profiles')) === 1);
      await waitFor('five more ticks', async () => ticks.mock.calls.length >= 6);
      expect(passes).toHaveBeenCalledTimes(1);
    } finally {
      await release();
    }
    await waitFor('the next pass after the slow one', async () => passes.mock.calls.length >= 2);
    expect(await passes.mock.results[0].value).toMatchObject({ ok: true });
  });

  it('logs a failed pass by its last line and tries again at the next tick', async () => {
    const failures = warningsFrom('reaper failed, retrying in 1000 ms:');
    const reaps = jest.spyOn(RunReaper.prototype, 'reap');
    await start({ WORKER_QUEUES: 'runs', REAPER_INTERVAL_MS: '1000' });
    await withoutRunsTable(() => waitFor('two failed passes', async () => failures().length >= 2, 15_000));
    expect(failures()[0]).toMatch(/runs.*does not exist/);
    expect(failures()[0]).not.toContain('\n');
    await expect(nextResult(reaps)).resolves.toEqual({ aborted: 0, requeued: 0, failed: 0 });
  });

  it('retries a failed cron pass a minute later, and the next cron time runs it too', async () => {
    const failures = warningsFrom('retention failed, retrying in 60000 ms:');
    const passes = jest.spyOn(RetentionService.prototype, 'runDue');
    await withoutRunsTable(async () => {
      // Every second (cron's seconds field), so that the test sees two cron times.
      const app = await start({ WORKER_QUEUES: 'retention', RETENTION_CRON: '* * * * * *' });
      const registry = app.get(SchedulerRegistry);
      await waitFor('a failed pass', async () => failures().length >= 1, 15_000);
      expect(registry.getTimeouts()).toEqual(['retention retry']);
      await waitFor('the next cron time to fail too', async () => failures().length >= 2, 15_000);
      expect(registry.getTimeouts()).toEqual(['retention retry']);
    });
    await expect(nextResult(passes)).resolves.toMatchObject({ dropped: expect.any(Object) });
  });

  it('awaits the pass in flight on shutdown, then ticks no more and the registry is empty', async () => {
    const ticks = jest.spyOn(ScheduledChore.prototype, 'tick');
    const passes = jest.spyOn(SchedulerService.prototype, 'tick');
    const release = await lockTable('profiles');
    let closed = false;
    let closing: Promise<void>;
    let registry: SchedulerRegistry;
    try {
      const app = await start({ WORKER_QUEUES: 'schedule', SCHEDULER_TICK_MS: '50' });
      apps.splice(apps.indexOf(app), 1);
      registry = app.get(SchedulerRegistry);
      await waitFor('the boot pass to wait on the lock', async () => (await waitingOn('profiles')) === 1);
      closing = app.close().then(() => {
        closed = true;
      });
      await waitFor('the ticks to stop', async () => registry.getIntervals().length === 0);
      expect(closed).toBe(false);
    } finally {
      await release();
    }
    await closing;
    // The pass finished against an open database: the pool closes only after it.
    const report = (await passes.mock.results[0].value) as TickReport;
    expect(report.ok).toBe(true);
    expect(passes).toHaveBeenCalledTimes(1);
    expect(registered(registry)).toEqual({ intervals: [], cronJobs: [], timeouts: [] });
    const after = ticks.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ticks.mock.calls.length).toBe(after);
  });
});
