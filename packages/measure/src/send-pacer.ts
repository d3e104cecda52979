import { TURN_BUDGET_NS } from './arrival-inbox';
import { objectArray } from './speed/object-array';

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
const NO_TURN = Number.NEGATIVE_INFINITY;

export class SendPacer {
  private readonly queue: Array<() => void> = objectArray();
  /**
   * When this turn's budget ends, performance.now() ms; negative: no send yet this turn. A double from
   * birth, as every number field the measuring loop writes doubles to: a field born a small integer
   * changes representation on its first double, which replaces its class's map, and code optimized on
   * the warm-up's objects then met the run's own with the old map in the window ("wrong map").
   */
  private turnEndsMs = NO_TURN;
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
    this.turnEndsMs = NO_TURN;
    // within() opens the new turn's budget on the first call: at least one send per turn
    while (this.queue.length > 0 && this.within()) this.queue.shift()!();
    if (this.queue.length > 0) this.schedule();
  }
}
