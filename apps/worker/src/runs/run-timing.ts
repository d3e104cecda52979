import { parseProfileSnapshot, SKIPPED_RUN_ERROR_PREFIX } from '@teapot/contracts';
import { ProfileSchedule, parseSlotKey } from '../schedule/schedule';

/** What the start rules read of a run. */
export interface RunToStart {
  slotKey: string | null;
  queuedAt: Date;
  profileSnapshot: unknown;
}

/** The schedule slot a run was queued for; null for manual runs and snapshots without a usable schedule. */
export function slotOf(run: RunToStart): { schedule: ProfileSchedule; slotMs: number } | null {
  const slot = run.slotKey ? parseSlotKey(run.slotKey) : null;
  if (!slot) return null;
  try {
    const snapshot = parseProfileSnapshot(run.profileSnapshot);
    const spec = {
      cron: snapshot.scheduleCron,
      intervalS: snapshot.scheduleIntervalS,
      jitterS: snapshot.scheduleJitterS,
    };
    return { schedule: new ProfileSchedule(slot.profileId, spec), slotMs: slot.slotMs };
  } catch {
    // An invalid snapshot fails the run later, with its reason; here it only means "no slot".
    return null;
  }
}

/**
 * The latest time a run may start: a scheduled run's next slot due time (so slots never pile up),
 * `maxWaitMs` after queueing for any other run.
 */
export function startDeadline(run: RunToStart, maxWaitMs: number): number {
  const slot = slotOf(run);
  if (slot) return slot.schedule.dueAt(slot.schedule.slotAfter(slot.slotMs));
  return run.queuedAt.getTime() + maxWaitMs;
}

/** Null when the run may still start at `nowMs`; otherwise why it is skipped. */
export function skippedAtStart(run: RunToStart, deadlineMs: number, nowMs: number): string | null {
  return nowMs >= deadlineMs
    ? `${SKIPPED_RUN_ERROR_PREFIX}could not start before ${describeDeadline(run, deadlineMs)}`
    : null;
}

/**
 * A busy endpoint: try again in `retryMs`, unless that retry would come at or after the deadline,
 * in which case the run is skipped with the reason.
 */
export function onBusyEndpoint(
  run: RunToStart,
  deadlineMs: number,
  nowMs: number,
  retryMs: number,
): { retryInMs: number } | { skipped: string } {
  if (nowMs + retryMs >= deadlineMs) {
    return {
      skipped: `${SKIPPED_RUN_ERROR_PREFIX}endpoint busy with another run until ${describeDeadline(run, deadlineMs)}`,
    };
  }
  return { retryInMs: retryMs };
}

/** How late a scheduled run started after its slot's due time; null for other runs. */
export function startDelayMs(run: RunToStart, nowMs: number): number | null {
  const slot = slotOf(run);
  return slot ? nowMs - slot.schedule.dueAt(slot.slotMs) : null;
}

function describeDeadline(run: RunToStart, deadlineMs: number): string {
  const at = new Date(deadlineMs).toISOString();
  return run.slotKey ? `the next slot at ${at}` : `${at} (waited the longest a run may wait)`;
}

/** The profile's latest measured runs the usual duration is the median of; fewer than 3, no budget. */
export const RUN_BUDGET_HISTORY = 5;
const RUN_BUDGET_MIN_HISTORY = 3;

/** RUN_BUDGET_FACTOR and RUN_BUDGET_FLOOR_MS of the worker's environment. */
export interface BudgetRule {
  factor: number;
  floorMs: number;
}

/**
 * How long a run may measure before it is ended early (aborted, class `endpoint`), from its profile's
 * usual duration: an endpoint that streams forever or drips bytes (slowloris) then holds a measuring
 * slot for a bounded time instead of its requests' whole timeouts, and the other endpoints' runs
 * start. The factor leaves a real regression (a slower deployment) measured in full. Null (no budget
 * but the run's own timeouts) until the profile has a usual duration.
 */
export function runBudget(
  recentDurationsMs: readonly number[],
  rule: BudgetRule,
): { budgetMs: number; reason: string } | null {
  if (recentDurationsMs.length < RUN_BUDGET_MIN_HISTORY) return null;
  const sorted = [...recentDurationsMs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const usualMs = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const budgetMs = Math.max(rule.floorMs, rule.factor * usualMs);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return {
    budgetMs,
    reason:
      `ended early: still measuring after its time budget of ${seconds(budgetMs)} ` +
      `(${rule.factor}x the median ${seconds(usualMs)} of the profile's last ${sorted.length} measured runs, ` +
      `at least ${seconds(rule.floorMs)}); the endpoint answered too slowly or did not end its responses`,
  };
}
