import type { PromptSpec } from './prompt-spec';
import type { SessionPlan, TurnOutcome } from './sessions';

/** What a request hears when it ends: how it went (session workloads), or null. */
export type RequestDone = (outcome: TurnOutcome | null) => void;

/** What the runner needs of the run that sends its turns. */
export interface SessionHost {
  stopped(): boolean;
  nowUs(): number;
  issue(warmup: boolean, scheduledUs: number | null, done: RequestDone, spec: PromptSpec): void;
}

/**
 * Sends a run's sessions: each session's turns one after another, a turn after the previous one ended
 * and its think time. A closed loop's streams are sessions in flight; an open loop's arrivals start
 * sessions. Callbacks rather than promises, as the run's own request path (run.ts).
 */
export class SessionRunner {
  /** Think-time pauses, cut short when the run stops (their turn then sees it stopped). */
  private readonly pauses = new Map<NodeJS.Timeout, () => void>();

  constructor(
    private readonly plan: SessionPlan,
    private readonly host: SessionHost,
  ) {}

  /** Sessions started. */
  get started(): number {
    return this.plan.sessions;
  }

  /**
   * One session, while `claim` grants each of its turns a request; `ended` when it is over, failed or
   * cut off. A later turn is scheduled at the end of its pause; the first at `firstScheduledUs` (the
   * arrival that started it, open loop) or when sent (null).
   */
  run(warmup: boolean, firstScheduledUs: number | null, claim: () => boolean, ended: () => void): void {
    if (!claim()) return ended();
    const session = this.plan.start();
    const send = (spec: PromptSpec, scheduledUs: number | null): void =>
      this.host.issue(
        warmup,
        scheduledUs,
        (outcome) => {
          const turn = this.host.stopped() ? null : session.next(outcome);
          if (turn === null || !claim()) return ended();
          const dueUs = Math.round(this.host.nowUs() + turn.thinkMs * 1000);
          this.pause(dueUs, () => send(turn.spec, dueUs));
        },
        spec,
      );
    const first = session.next(null);
    if (first === null) return ended();
    send(first.spec, firstScheduledUs);
  }

  /** The run stopped: every pause ends now. */
  cutPauses(): void {
    for (const [timer, resume] of this.pauses) {
      clearTimeout(timer);
      this.pauses.delete(timer);
      resume();
    }
  }

  /**
   * Runs `resume` at `dueUs` on the run's clock (at once when due), or as soon as the run stops. A libuv
   * timer counts from the loop's cached time and may fire early: it is checked against the clock.
   */
  private pause(dueUs: number, resume: () => void): void {
    const leftUs = dueUs - this.host.nowUs();
    if (leftUs <= 0 || this.host.stopped()) return resume();
    const timer = setTimeout(
      () => {
        this.pauses.delete(timer);
        this.pause(dueUs, resume);
      },
      Math.ceil(leftUs / 1000),
    );
    this.pauses.set(timer, resume);
  }
}
