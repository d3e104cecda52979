import { ProfileSchedule, jitterMs, parseSlotKey, slotKey } from './schedule';

const T = Date.UTC(2026, 0, 1, 10, 5, 0);
const ID = '6f1c1a4e-1b7e-4a4f-9d0f-2f1f3a0c9b11';

describe('ProfileSchedule', () => {
  it('aligns interval slots to the epoch', () => {
    const s = new ProfileSchedule(ID, { cron: null, intervalS: 60, jitterS: 0 });
    expect(s.slotAtOrBefore(T + 59_999)).toBe(T);
    expect(s.slotAtOrBefore(T)).toBe(T);
    expect(s.slotAfter(T)).toBe(T + 60_000);
    expect(s.slotAfter(T + 1)).toBe(T + 60_000);
  });

  it('reads cron expressions in UTC, a slot at exactly the time included', () => {
    const s = new ProfileSchedule(ID, { cron: '*/5 * * * *', intervalS: null, jitterS: 0 });
    expect(s.slotAtOrBefore(T)).toBe(T);
    expect(s.slotAtOrBefore(T - 1)).toBe(T - 5 * 60_000);
    expect(s.slotAfter(T)).toBe(T + 5 * 60_000);
  });

  it('delays due times by a jitter fixed per profile', () => {
    const s = new ProfileSchedule(ID, { cron: null, intervalS: 60, jitterS: 30 });
    expect(s.jitterMs).toBe(jitterMs(ID, 30));
    expect(s.jitterMs).toBeGreaterThanOrEqual(0);
    expect(s.jitterMs).toBeLessThan(30_000);
    expect(s.dueAt(T)).toBe(T + s.jitterMs);
    expect(s.latestDueSlot(T + s.jitterMs)).toBe(T);
    expect(s.latestDueSlot(T + s.jitterMs - 1)).toBe(T - 60_000);
  });

  it('spreads jitter over profiles', () => {
    const values = new Set(Array.from({ length: 200 }, (_, i) => jitterMs(`profile-${i}`, 60)));
    expect(values.size).toBeGreaterThan(190);
  });

  it('refuses a profile without a schedule and a bad cron expression', () => {
    expect(() => new ProfileSchedule(ID, { cron: null, intervalS: null, jitterS: 0 })).toThrow(/neither/);
    expect(() => new ProfileSchedule(ID, { cron: 'not a cron', intervalS: null, jitterS: 0 })).toThrow();
  });
});

describe('slot keys', () => {
  it('round-trip and contain no colon (BullMQ job ids)', () => {
    const key = slotKey(ID, T);
    expect(key).not.toContain(':');
    expect(parseSlotKey(key)).toEqual({ profileId: ID, slotMs: T });
    expect(parseSlotKey('no-slot')).toBeNull();
  });
});
