import { CronExpressionParser } from 'cron-parser';

/** A profile's schedule columns: a cron expression (UTC) or an interval, plus jitter. */
export interface ScheduleSpec {
  cron: string | null;
  intervalS: number | null;
  jitterS: number;
}

/**
 * Slot times of one profile. Interval slots are aligned to the Unix epoch and cron slots are the
 * expression's UTC times, so every scheduler computes the same slots without coordinating.
 * A slot is due at `slot + jitterMs`; the jitter is a fixed function of the profile id, so it
 * spreads profiles apart but never moves one profile's slot between schedulers or restarts.
 */
export class ProfileSchedule {
  readonly jitterMs: number;
  private readonly intervalMs: number | null;

  constructor(
    readonly profileId: string,
    readonly spec: ScheduleSpec,
  ) {
    if (spec.cron) {
      // Parse once now so a bad expression is reported when the profile is loaded.
      CronExpressionParser.parse(spec.cron, { tz: 'UTC' });
      this.intervalMs = null;
    } else if (spec.intervalS && spec.intervalS > 0) {
      this.intervalMs = spec.intervalS * 1000;
    } else {
      throw new Error(`profile ${profileId} has neither a cron expression nor a positive interval`);
    }
    this.jitterMs = jitterMs(profileId, spec.jitterS);
  }

  /** The latest slot at or before `timeMs`. */
  slotAtOrBefore(timeMs: number): number {
    if (this.intervalMs !== null) return Math.floor(timeMs / this.intervalMs) * this.intervalMs;
    return cronTimeAtOrBefore(this.spec.cron as string, timeMs);
  }

  /** The first slot strictly after `slotMs`. */
  slotAfter(slotMs: number): number {
    if (this.intervalMs !== null) return (Math.floor(slotMs / this.intervalMs) + 1) * this.intervalMs;
    return this.cron(slotMs).next().getTime();
  }

  dueAt(slotMs: number): number {
    return slotMs + this.jitterMs;
  }

  /** The latest slot whose due time is at or before `timeMs`. */
  latestDueSlot(timeMs: number): number {
    return this.slotAtOrBefore(timeMs - this.jitterMs);
  }

  private cron(currentMs: number) {
    return CronExpressionParser.parse(this.spec.cron as string, {
      currentDate: new Date(currentMs),
      tz: 'UTC',
    });
  }
}

/** The latest time of a cron expression (UTC) at or before `timeMs`; throws on a bad expression. */
export function cronTimeAtOrBefore(cron: string, timeMs: number): number {
  return CronExpressionParser.parse(cron, { currentDate: new Date(timeMs + 1), tz: 'UTC' })
    .prev()
    .getTime();
}

/** Run ids and BullMQ job ids of scheduled runs: `<profile id>@<slot, ms since epoch>` (BullMQ forbids ':'). */
export function slotKey(profileId: string, slotMs: number): string {
  return `${profileId}@${slotMs}`;
}

export function parseSlotKey(key: string): { profileId: string; slotMs: number } | null {
  const at = key.lastIndexOf('@');
  if (at <= 0) return null;
  const slotMs = Number(key.slice(at + 1));
  return Number.isSafeInteger(slotMs) ? { profileId: key.slice(0, at), slotMs } : null;
}

/** Deterministic jitter in [0, jitterS s): FNV-1a of the profile id. */
export function jitterMs(profileId: string, jitterS: number): number {
  if (jitterS <= 0) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < profileId.length; i++) {
    hash ^= profileId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % (jitterS * 1000);
}
