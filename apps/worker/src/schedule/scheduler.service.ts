import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { CLOCK, WORKER_ENV, type Clock } from '../env/worker-env';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';
import { SKIPPED_RUN_ERROR_PREFIX } from '@teapot/contracts';
import { lastScheduledSlotKeys } from '@teapot/db';
import { ProfileSchedule, parseSlotKey, slotKey } from './schedule';
import {
  insertDueRuns,
  loadScheduledProfiles,
  type DueSlot,
  type MissedSlot,
  type ScheduledProfileRow,
} from './scheduled-runs';

/** A profile's slot to queue now, the slots it missed before it, and where its book moves to. */
interface DueEntry {
  slot: DueSlot;
  missed: Array<Omit<MissedSlot, 'reason'>>;
  entry: BookEntry;
  nextSlotMs: number;
}

/** Missed slots recorded one by one per profile and tick, the latest ones: a long outage is bounded. */
const MAX_MISSED_RECORDED = 100;

interface BookEntry {
  schedule: ProfileSchedule;
  changedAtMs: number;
  /** The earliest slot this scheduler has not enqueued yet. */
  nextSlotMs: number;
}

export interface TickReport {
  atMs: number;
  profiles: number;
  /** Slots that came due in this tick (at most one per profile). */
  due: number;
  /** Runs and sweeps this tick inserted or found still queued, and whose jobs it added. */
  enqueued: number;
  /** Missed slots (nothing queued at their due time) this tick recorded as skipped runs. */
  skipped: number;
  durationMs: number;
  /** False when the tick was skipped (the previous one still running) or failed. */
  ok: boolean;
}

/**
 * Finds due profiles and only enqueues: one queued Run row and one BullMQ job per (profile, slot),
 * the job id being the slot key, so any number of schedulers enqueue each slot once. A sweep profile's
 * slot is one queued Sweep row (unique slot key too) and its first `advance-sweep` job.
 *
 * Timing: each tick enqueues the slots due within the next two ticks as delayed jobs, so a job becomes
 * runnable at its due time rather than up to a tick late.
 * Catch-up: after downtime (or failed ticks: the database or Redis away) only the latest missed slot
 * of a profile is enqueued, never the pile of slots in between; those are recorded as skipped runs
 * with the reason, so a gap in a trend is explained. The gap is known from this scheduler's own book,
 * or at boot from the profile's latest scheduled run. Slots before a profile's last change are neither.
 */
@Injectable()
export class SchedulerService {
  private readonly logger = new Logger(SchedulerService.name);
  private readonly book = new Map<string, BookEntry>();
  /** Profiles with an unusable schedule, by change time, so each is reported once per change. */
  private readonly unschedulable = new Map<string, number>();
  private ticking = false;
  /** Why the last tick failed, while ticks fail: the reason recorded on the slots they missed. */
  private failure: string | null = null;
  /** Set when the last tick took longer than the look-ahead (a hung connection came back): its slots were late. */
  private slowTick: string | null = null;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** A time on the injected clock as BullMQ's wall clock (they differ when a test shifts the clock). */
  private wallClockAt(clockMs: number): number {
    return clockMs - this.clock.now() + Date.now();
  }

  /** One scheduling pass at `nowMs`; a script calls it on an app created with `autoStart: false`. */
  async tick(nowMs: number = this.clock.now()): Promise<TickReport> {
    const started = performance.now();
    const report: TickReport = {
      atMs: nowMs,
      profiles: 0,
      due: 0,
      enqueued: 0,
      skipped: 0,
      durationMs: 0,
      ok: false,
    };
    if (this.ticking) return report;
    this.ticking = true;
    try {
      await this.refresh(await loadScheduledProfiles(this.prisma.pool), nowMs);
      report.profiles = this.book.size;
      // Two ticks ahead: a tick that itself takes up to a tick (1,000 slots at a boundary) still
      // enqueues every slot before it is due.
      const horizonMs = nowMs + 2 * this.env.SCHEDULER_TICK_MS;
      const due = this.dueSlots(horizonMs);
      report.due = due.length;
      if (due.length > 0) {
        const trouble = this.failure ?? this.slowTick;
        const reason = trouble
          ? `${SKIPPED_RUN_ERROR_PREFIX}not queued in time: the scheduler could not reach the database or Redis (${trouble})`
          : `${SKIPPED_RUN_ERROR_PREFIX}not queued in time: no scheduler ticked at its due time (teapot was down or stalled)`;
        const queued = await insertDueRuns(
          this.prisma,
          due.map(({ slot }) => slot),
          due.flatMap(({ missed }) => missed.map((slot) => ({ ...slot, reason }))),
        );
        report.skipped = queued.skipped;
        const dueAt = new Map(due.map(({ slot }) => [slot.slotKey, slot.dueAtMs]));
        const runAtMs = (key: string) => this.wallClockAt(dueAt.get(key) ?? nowMs);
        await this.redis.runs.enqueueRuns(
          queued.runs.map(({ runId, slotKey: key }) => ({ runId, jobId: key, runAtMs: runAtMs(key) })),
        );
        // A sweep's first step at the slot's due time; its points follow one after another.
        for (const { sweepId, slotKey: key } of queued.sweeps)
          await this.redis.sweeps.enqueueAdvance(sweepId, 0, { runAtMs: runAtMs(key) });
        // Advance only after both writes: a failed tick is retried, with catch-up, by the next one.
        for (const { entry, nextSlotMs } of due) entry.nextSlotMs = nextSlotMs;
        report.enqueued = queued.runs.length + queued.sweeps.length;
      }
      report.ok = true;
      if (this.failure) this.logger.log('scheduler tick recovered');
      if (report.skipped > 0)
        this.logger.warn(`${report.skipped} missed slot(s) recorded as skipped runs (only the latest runs)`);
      this.failure = null;
      const tookMs = performance.now() - started;
      this.slowTick =
        tookMs > 2 * this.env.SCHEDULER_TICK_MS
          ? `a tick waited ${(tookMs / 1000).toFixed(1)} s for them and no other could run meanwhile`
          : null;
    } catch (error) {
      if (!this.failure)
        this.logger.warn(`scheduler tick failed, retrying next tick: ${(error as Error).message}`);
      this.failure = (error as Error).message;
    } finally {
      this.ticking = false;
      report.durationMs = performance.now() - started;
      this.metrics.recordTick(report);
    }
    return report;
  }

  private async refresh(rows: ScheduledProfileRow[], nowMs: number): Promise<void> {
    const seen = new Set<string>();
    const changed = rows.filter(
      (row) =>
        this.book.get(row.id)?.changedAtMs !== row.changedAtMs &&
        this.unschedulable.get(row.id) !== row.changedAtMs,
    );
    const lastSlots = await lastScheduledSlotKeys(
      this.prisma.pool,
      changed.map((row) => row.id),
    );
    for (const row of rows) {
      seen.add(row.id);
      const existing = this.book.get(row.id);
      if (existing && existing.changedAtMs === row.changedAtMs) continue;
      if (this.unschedulable.get(row.id) === row.changedAtMs) continue;
      let schedule: ProfileSchedule;
      try {
        schedule = new ProfileSchedule(row.id, {
          cron: row.scheduleCron,
          intervalS: row.scheduleIntervalS,
          jitterS: row.scheduleJitterS,
        });
      } catch (error) {
        this.logger.warn(`profile ${row.id} is not scheduled: ${(error as Error).message}`);
        this.unschedulable.set(row.id, row.changedAtMs);
        this.book.delete(row.id);
        continue;
      }
      const latest = schedule.latestDueSlot(nowMs);
      const upcoming = latest >= row.changedAtMs ? latest : schedule.slotAfter(latest);
      // The slots since the profile's latest scheduled run are a gap to record, unless they began before its last change.
      const last = parseSlotKey(lastSlots.get(row.id) ?? '');
      const gapFrom = last ? schedule.slotAfter(last.slotMs) : Infinity;
      const nextSlotMs = gapFrom >= row.changedAtMs ? Math.min(gapFrom, upcoming) : upcoming;
      this.unschedulable.delete(row.id);
      this.book.set(row.id, { schedule, changedAtMs: row.changedAtMs, nextSlotMs });
    }
    for (const id of this.book.keys()) if (!seen.has(id)) this.book.delete(id);
    for (const id of this.unschedulable.keys()) if (!seen.has(id)) this.unschedulable.delete(id);
  }

  private dueSlots(horizonMs: number): DueEntry[] {
    const due: DueEntry[] = [];
    for (const [profileId, entry] of this.book) {
      const { schedule } = entry;
      if (schedule.dueAt(entry.nextSlotMs) > horizonMs) continue;
      const slotMs = Math.max(entry.nextSlotMs, schedule.latestDueSlot(horizonMs));
      // The slots between the first not yet queued and the one queued now, latest first.
      const missed: Array<Omit<MissedSlot, 'reason'>> = [];
      for (
        let missedMs = schedule.slotAtOrBefore(slotMs - 1);
        missedMs >= entry.nextSlotMs && missed.length < MAX_MISSED_RECORDED;
        missedMs = schedule.slotAtOrBefore(missedMs - 1)
      )
        missed.push({ profileId, slotKey: slotKey(profileId, missedMs) });
      due.push({
        slot: { profileId, slotKey: slotKey(profileId, slotMs), dueAtMs: schedule.dueAt(slotMs) },
        missed,
        entry,
        nextSlotMs: schedule.slotAfter(slotMs),
      });
    }
    return due;
  }
}
