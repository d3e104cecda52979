import { FailedAuthLimiter } from './failed-auth.limiter';

describe('FailedAuthLimiter', () => {
  it('lets an address fail perMinute times, then says when it may try again, refilling over the minute', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(6, () => now);
    for (let i = 0; i < 6; i++) {
      expect(limiter.retryAfterS('10.0.0.1')).toBe(0);
      limiter.recordFailure('10.0.0.1');
    }
    expect(limiter.retryAfterS('10.0.0.1')).toBe(10);
    expect(limiter.retryAfterS('10.0.0.2')).toBe(0);
    now = 9_999;
    expect(limiter.retryAfterS('10.0.0.1')).toBe(1);
    now = 10_000;
    expect(limiter.retryAfterS('10.0.0.1')).toBe(0);
    limiter.recordFailure('10.0.0.1');
    expect(limiter.retryAfterS('10.0.0.1')).toBe(10);
    now = 70_000;
    for (let i = 0; i < 6; i++) limiter.recordFailure('10.0.0.1');
    expect(limiter.retryAfterS('10.0.0.1')).toBe(10);
  });

  it('stays bounded under failures from very many addresses', () => {
    const limiter = new FailedAuthLimiter(1, () => 0);
    for (let i = 0; i < 25_000; i++) limiter.recordFailure(`a${i}`);
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(
      10_000,
    );
    expect(limiter.retryAfterS('a24999')).toBe(60);
  });
});
