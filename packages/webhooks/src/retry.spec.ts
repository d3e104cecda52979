import {
  attemptVerdict,
  DEFAULT_RETRY_SCHEDULE,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  parseRetrySchedule,
} from './retry';

describe('the retry schedule', () => {
  const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);

  it('is exponential-ish over about a day by default, and configurable', () => {
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    const totalH = schedule.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(totalH).toBeGreaterThan(20);
    expect(totalH).toBeLessThan(30);
    expect(parseRetrySchedule('200ms, 1.5s,1m')).toEqual([200, 1500, 60_000]);
    expect(() => parseRetrySchedule('5s,soon')).toThrow('"soon" is not a delay');
  });

  it('succeeds on 2xx, disables on 410, retries everything else with jitter, then gives up', () => {
    const none = { retryAfterMs: null };
    expect(attemptVerdict(1, { statusCode: 200, ...none }, schedule)).toEqual({ kind: 'succeeded' });
    expect(attemptVerdict(1, { statusCode: 299, ...none }, schedule)).toEqual({ kind: 'succeeded' });
    expect(attemptVerdict(1, { statusCode: 410, ...none }, schedule)).toEqual({ kind: 'gone' });
    for (const statusCode of [null, 301, 400, 404, 500, 502]) {
      expect(attemptVerdict(2, { statusCode, ...none }, schedule, () => 0.5)).toEqual({
        kind: 'retry',
        delayMs: 300_000,
      });
    }
    expect(attemptVerdict(2, { statusCode: 500, ...none }, schedule, () => 0)).toEqual({
      kind: 'retry',
      delayMs: 240_000,
    });
    expect(attemptVerdict(2, { statusCode: 500, ...none }, schedule, () => 1)).toEqual({
      kind: 'retry',
      delayMs: 360_000,
    });
    expect(attemptVerdict(7, { statusCode: 500, ...none }, schedule).kind).toBe('retry');
    expect(attemptVerdict(8, { statusCode: 500, ...none }, schedule)).toEqual({ kind: 'given_up' });
  });

  it('waits exactly Retry-After on 429 and 503 (capped at a day), and only on those', () => {
    expect(attemptVerdict(1, { statusCode: 429, retryAfterMs: 30_000 }, schedule)).toEqual({
      kind: 'retry',
      delayMs: 30_000,
    });
    expect(attemptVerdict(1, { statusCode: 503, retryAfterMs: 2 * MAX_RETRY_AFTER_MS }, schedule)).toEqual({
      kind: 'retry',
      delayMs: MAX_RETRY_AFTER_MS,
    });
    expect(attemptVerdict(1, { statusCode: 500, retryAfterMs: 30_000 }, schedule, () => 0.5)).toEqual({
      kind: 'retry',
      delayMs: 5_000,
    });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-12-03T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 03 Dec 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Thu, 03 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
