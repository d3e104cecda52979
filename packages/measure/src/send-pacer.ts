import { TURN_BUDGET_NS } from './arrival-inbox';

/**
 * Sends requests at most TURN_BUDGET_NS of each event-loop turn, so that a burst of them (a run's
 * first wave, or a closed loop's wave ending together) does not hold up the timestamps of tokens
 * already streaming: each send costs 100-200 us here (body, framing, the socket write), and 1024 of
 * them in one piece kept the loop from reading for ~200 ms. What is over the budget waits for the next
 * check phase, after the poll phase has timestamped the reads that came meanwhile.
 *
 * A request's start is taken when it is written (packages/measure/README.md), so the wait here is not
 * counted in its TTFT; an open-loop request still shows it as its lag behind its scheduled time.
 */
export class SendPacer {
  private readonly queue: Array<() => void> = [];
  /** When this turn's budget ends, performance.now() ms; -1: no send yet this turn. */
  private turnEndsMs = -1;
  private scheduled = false;
  private readonly nextTurnBound = () => this.nextTurn();

  constructor(private readonly budgetNs: number = TURN_BUDGET_NS) {}

  /** Calls `send` now while this turn's budget lasts, else in a later turn, in the order given. */
  run(send: () => void): void {
    if (this.queue.length === 0 && this.within()) {
      send();
      return;
    }
    this.queue.push(send);
    this.schedule();
  }

  private within(): boolean {
    const nowMs = performance.now();
    if (this.turnEndsMs < 0) {
      // the first send of this turn opens its budget; the next check phase closes it
      this.turnEndsMs = nowMs + this.budgetNs / 1e6;
      this.schedule();
      return true;
    }
    return nowMs < this.turnEndsMs;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.nextTurnBound);
  }

  private nextTurn(): void {
    this.scheduled = false;
    this.turnEndsMs = -1;
    // within() opens the new turn's budget on the first call: at least one send per turn
    while (this.queue.length > 0 && this.within()) this.queue.shift()!();
    if (this.queue.length > 0) this.schedule();
  }
}
