import type { ConnectBackoffReport } from './types';

/**
 * What a run does when the endpoint cannot be reached. Without it, a closed loop of 64 streams sends
 * hundreds of requests into a refused port within a fraction of a second, and an endpoint that is
 * down for three seconds ends the run. Instead, after a connection failure (refused, DNS, connect
 * timeout, closed before any response byte) every new request waits: after a jittered pause one
 * request goes out as a probe, the others wait for its outcome. A probe that gets any response ends
 * the outage; one that fails doubles the pause (bounded). An outage longer than `maxOutageMs` ends
 * the run, so a request-bounded run against a dead endpoint does not probe for hours.
 */
export const CONNECT_BACKOFF = {
  firstPauseMs: 100,
  maxPauseMs: 5_000,
  maxOutageMs: 60_000,
} as const;

export type ConnectBackoffPolicy = { [K in keyof typeof CONNECT_BACKOFF]: number };

/** What a request must do before it is sent. */
export type Admission =
  | { kind: 'send' }
  /** Ask again after this many ms (the pause is running, or another request is probing). */
  | { kind: 'wait'; ms: number | null }
  /** The outage outlasted maxOutageMs: the run should end. */
  | { kind: 'give_up'; reason: string };

const NO_PAUSE = Number.NEGATIVE_INFINITY;

export class ConnectBackoff {
  private consecutiveFailures = 0;
  private outageStartMs: number | null = null;
  /** A double from birth (see SendPacer.turnEndsMs); no pause before the first failure. */
  private pauseUntilMs = NO_PAUSE;
  private probing = false;
  private readonly report: ConnectBackoffReport = {
    outages: 0,
    pauses: 0,
    pausedMs: 0,
    longestOutageMs: 0,
    gaveUp: false,
  };

  constructor(
    private readonly random: () => number,
    private readonly policy: ConnectBackoffPolicy = CONNECT_BACKOFF,
  ) {}

  /** May a request go out now? A `send` during an outage makes this request the probe. */
  admit(nowMs: number): Admission {
    if (this.outageStartMs === null) return { kind: 'send' };
    if (nowMs - this.outageStartMs > this.policy.maxOutageMs) {
      this.report.gaveUp = true;
      return {
        kind: 'give_up',
        reason: `the endpoint could not be reached for ${Math.round((nowMs - this.outageStartMs) / 1000)} s (connection failures, paused and probed)`,
      };
    }
    if (nowMs < this.pauseUntilMs) return { kind: 'wait', ms: this.pauseUntilMs - nowMs };
    if (this.probing) return { kind: 'wait', ms: null };
    this.probing = true;
    return { kind: 'send' };
  }

  /** A request failed before any response byte: the endpoint is (still) unreachable. */
  onConnectFailure(nowMs: number): void {
    if (this.outageStartMs === null) {
      this.outageStartMs = nowMs;
      this.report.outages++;
    }
    this.probing = false;
    // requests already in flight when the outage began fail together: one pause for all of them
    if (nowMs < this.pauseUntilMs) return;
    this.consecutiveFailures++;
    const ceiling = Math.min(
      this.policy.maxPauseMs,
      this.policy.firstPauseMs * 2 ** (this.consecutiveFailures - 1),
    );
    // "equal jitter": at least half the pause, so the probes of several runs spread without bunching
    const pauseMs = ceiling / 2 + (this.random() * ceiling) / 2;
    this.pauseUntilMs = nowMs + pauseMs;
    this.report.pauses++;
    this.report.pausedMs += pauseMs;
    this.report.longestOutageMs = Math.max(this.report.longestOutageMs, nowMs - this.outageStartMs);
  }

  /** A request got a response (any status): the endpoint is reachable. */
  onResponse(nowMs: number): void {
    if (this.outageStartMs !== null) {
      this.report.longestOutageMs = Math.max(this.report.longestOutageMs, nowMs - this.outageStartMs);
    }
    this.outageStartMs = null;
    this.consecutiveFailures = 0;
    this.pauseUntilMs = NO_PAUSE;
    this.probing = false;
  }

  get inOutage(): boolean {
    return this.outageStartMs !== null;
  }

  summary(): ConnectBackoffReport {
    return { ...this.report, pausedMs: Math.round(this.report.pausedMs) };
  }
}
