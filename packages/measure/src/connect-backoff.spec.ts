import { ConnectBackoff } from './connect-backoff';

const policy = { firstPauseMs: 100, maxPauseMs: 1000, maxOutageMs: 10_000 };

describe('ConnectBackoff', () => {
  it('sends freely while the endpoint answers', () => {
    const backoff = new ConnectBackoff(() => 0.5, policy);
    expect(backoff.admit(0)).toEqual({ kind: 'send' });
    backoff.onResponse(5);
    expect(backoff.admit(6)).toEqual({ kind: 'send' });
    expect(backoff.summary()).toEqual({
      outages: 0,
      pauses: 0,
      pausedMs: 0,
      longestOutageMs: 0,
      gaveUp: false,
    });
  });

  it('pauses after a failure, one pause for the requests that were already in flight', () => {
    const backoff = new ConnectBackoff(() => 1, policy);
    backoff.onConnectFailure(1000);
    // 63 more in flight fail within the pause: still one pause of at most firstPauseMs
    for (let i = 0; i < 63; i++) backoff.onConnectFailure(1001);
    expect(backoff.admit(1050)).toEqual({ kind: 'wait', ms: 50 });
    expect(backoff.summary()).toMatchObject({ outages: 1, pauses: 1, pausedMs: 100 });
  });

  it('lets one probe out after the pause, holds the others until it ends, and doubles the pause when it fails', () => {
    const backoff = new ConnectBackoff(() => 1, policy);
    backoff.onConnectFailure(0);
    expect(backoff.admit(100)).toEqual({ kind: 'send' });
    expect(backoff.admit(101)).toEqual({ kind: 'wait', ms: null });
    backoff.onConnectFailure(110);
    expect(backoff.admit(111)).toEqual({ kind: 'wait', ms: 199 });
    expect(backoff.admit(310)).toEqual({ kind: 'send' });
    backoff.onConnectFailure(320);
    expect(backoff.admit(321)).toEqual({ kind: 'wait', ms: 399 });
  });

  it('keeps every pause within [ceiling / 2, ceiling] and the ceiling within maxPauseMs', () => {
    for (const draw of [0, 0.3, 0.999]) {
      const backoff = new ConnectBackoff(() => draw, policy);
      let now = 0;
      for (let failure = 1; failure <= 8; failure++) {
        backoff.onConnectFailure(now);
        const admission = backoff.admit(now);
        const ceiling = Math.min(1000, 100 * 2 ** (failure - 1));
        expect(admission.kind).toBe('wait');
        const waitMs = (admission as { ms: number }).ms;
        expect(waitMs).toBeGreaterThanOrEqual(ceiling / 2);
        expect(waitMs).toBeLessThanOrEqual(ceiling);
        now += waitMs;
        expect(backoff.admit(now)).toEqual({ kind: 'send' });
      }
    }
  });

  it('ends the outage on a response: the next failure starts again from the first pause', () => {
    const backoff = new ConnectBackoff(() => 1, policy);
    backoff.onConnectFailure(0);
    backoff.admit(100);
    backoff.onConnectFailure(100);
    backoff.admit(300);
    backoff.onResponse(350);
    expect(backoff.inOutage).toBe(false);
    expect(backoff.admit(351)).toEqual({ kind: 'send' });
    backoff.onConnectFailure(5000);
    expect(backoff.admit(5001)).toEqual({ kind: 'wait', ms: 99 });
    expect(backoff.summary()).toMatchObject({ outages: 2, pauses: 3, longestOutageMs: 350, gaveUp: false });
  });

  it('gives up once the endpoint has been unreachable for maxOutageMs', () => {
    const backoff = new ConnectBackoff(() => 1, policy);
    backoff.onConnectFailure(0);
    const admission = backoff.admit(10_001);
    expect(admission).toMatchObject({ kind: 'give_up' });
    expect((admission as { reason: string }).reason).toMatch(/could not be reached for 10 s/);
    expect(backoff.summary().gaveUp).toBe(true);
  });
});
