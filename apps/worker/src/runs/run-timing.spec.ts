import type { ProfileSnapshot } from '@teapot/contracts';
import { sampleSnapshot } from '@teapot/contracts/testing';
import { jitterMs, slotKey } from '../schedule/schedule';
import { onBusyEndpoint, runBudget, skippedAtStart, slotOf, startDeadline, startDelayMs } from './run-timing';

const PROFILE_ID = '6a1f3c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const HOUR_MS = 3_600_000;
const MAX_WAIT_MS = 30 * 60_000;
const SLOT_MS = Date.UTC(2026, 11, 3, 9, 0, 0);

function snapshot(schedule: { intervalS?: number; cron?: string; jitterS?: number }): ProfileSnapshot {
  return sampleSnapshot({
    id: PROFILE_ID,
    scheduleCron: schedule.cron ?? null,
    scheduleIntervalS: schedule.intervalS ?? null,
    scheduleJitterS: schedule.jitterS ?? 0,
  });
}

const scheduled = (schedule: { intervalS?: number; cron?: string; jitterS?: number }) => ({
  slotKey: slotKey(PROFILE_ID, SLOT_MS),
  queuedAt: new Date(SLOT_MS - 1_000),
  profileSnapshot: snapshot(schedule),
});
const manual = { slotKey: null, queuedAt: new Date(SLOT_MS), profileSnapshot: snapshot({}) };

describe('start rules of a run (pinned times)', () => {
  it("gives a scheduled run until its profile's next slot is due, jitter included", () => {
    const jitter = jitterMs(PROFILE_ID, 600);
    expect(startDeadline(scheduled({ intervalS: 3600 }), MAX_WAIT_MS)).toBe(SLOT_MS + HOUR_MS);
    expect(startDeadline(scheduled({ intervalS: 3600, jitterS: 600 }), MAX_WAIT_MS)).toBe(
      SLOT_MS + HOUR_MS + jitter,
    );
    // Cron slots: 09:00 then 09:15.
    expect(startDeadline(scheduled({ cron: '*/15 * * * *' }), MAX_WAIT_MS)).toBe(SLOT_MS + 15 * 60_000);
  });

  it('gives a manual run, or one whose snapshot has no usable schedule, the longest wait after queueing', () => {
    expect(startDeadline(manual, MAX_WAIT_MS)).toBe(SLOT_MS + MAX_WAIT_MS);
    const broken = { ...scheduled({ intervalS: 3600 }), profileSnapshot: { nonsense: true } };
    expect(slotOf(broken)).toBeNull();
    expect(startDeadline(broken, MAX_WAIT_MS)).toBe(broken.queuedAt.getTime() + MAX_WAIT_MS);
    expect(slotOf({ ...manual, slotKey: 'not-a-slot-key' })).toBeNull();
  });

  it('skips a run at its deadline and not a millisecond before', () => {
    const run = scheduled({ intervalS: 3600 });
    const deadline = startDeadline(run, MAX_WAIT_MS);
    expect(skippedAtStart(run, deadline, deadline - 1)).toBeNull();
    expect(skippedAtStart(run, deadline, deadline)).toBe(
      'skipped: could not start before the next slot at 2026-12-03T10:00:00.000Z',
    );
    expect(skippedAtStart(manual, SLOT_MS + MAX_WAIT_MS, SLOT_MS + MAX_WAIT_MS)).toBe(
      'skipped: could not start before 2026-12-03T09:30:00.000Z (waited the longest a run may wait)',
    );
  });

  it('retries a busy endpoint later only while the retry comes before the deadline', () => {
    const run = scheduled({ intervalS: 3600 });
    const deadline = SLOT_MS + HOUR_MS;
    expect(onBusyEndpoint(run, deadline, deadline - 5_001, 5_000)).toEqual({ retryInMs: 5_000 });
    expect(onBusyEndpoint(run, deadline, deadline - 5_000, 5_000)).toEqual({
      skipped: 'skipped: endpoint busy with another run until the next slot at 2026-12-03T10:00:00.000Z',
    });
  });

  it('measures the start delay of scheduled runs from their due time', () => {
    const jittered = scheduled({ intervalS: 3600, jitterS: 600 });
    const due = SLOT_MS + jitterMs(PROFILE_ID, 600);
    expect(startDelayMs(jittered, due + 1_234)).toBe(1_234);
    expect(startDelayMs(manual, SLOT_MS + 1_234)).toBeNull();
  });
});

describe('runBudget', () => {
  const rule = { factor: 3, floorMs: 10_000 };

  it('gives no budget until the profile has three measured runs', () => {
    expect(runBudget([], rule)).toBeNull();
    expect(runBudget([20_000, 21_000], rule)).toBeNull();
  });

  it('allows the factor times the median duration, however one outlier ran, and never less than the floor', () => {
    const budget = runBudget([20_000, 400_000, 22_000, 19_000, 21_000], rule);
    expect(budget?.budgetMs).toBe(63_000);
    expect(budget?.reason).toBe(
      'ended early: still measuring after its time budget of 63.0 s (3x the median 21.0 s of the ' +
        "profile's last 5 measured runs, at least 10.0 s); the endpoint answered too slowly or did not end its responses",
    );
    expect(runBudget([1_000, 3_000, 2_000, 4_000], rule)?.budgetMs).toBe(10_000);
    expect(runBudget([10_000, 30_000, 20_000, 40_000], rule)?.budgetMs).toBe(75_000);
  });
});
