import { performance } from 'node:perf_hooks';
import { LagHistogram } from './speed/lag-histogram';
import { objectArray } from './speed/object-array';

/** What the inbox hands each arrival to (a StreamAttempt). */
export interface ArrivalSink {
  handleRead(chunk: Buffer, arrivalNs: number): void;
  handleEnd(): void;
  handleTransportError(err: unknown): void;
}

/** What reached an attempt; tagged rather than told apart by instanceof, which fails across realms. */
export const ARRIVAL = { data: 0, end: 1, error: 2 } as const;
type ArrivalKind = (typeof ARRIVAL)[keyof typeof ARRIVAL];

/**
 * Work the measuring loop does in one turn, at most, besides timestamping: parsing arrivals here and
 * sending requests (SendPacer). What is left waits for the next turn, after the poll phase has
 * timestamped the reads that came meanwhile. A token read that arrives while the loop works waits
 * for it, so this bounds that wait: at 512 streams the end of a wave is 512 responses to finish and
 * 512 requests to send, ~60 ms of work that would otherwise run in one piece.
 */
export const TURN_BUDGET_NS = 500_000;
/**
 * Arrivals one poll phase may bring without the times array growing: a read and an end for each of
 * 2,048 streams. The growth is a branch the warm-up's rehearsals (32 streams) never take; taken first
 * in the window, it deoptimized the read path there.
 */
const INITIAL_CAPACITY = 4096;

/**
 * Arrivals wait here until the event loop's check phase, so that every socket read of one poll phase
 * is timestamped before any of them is parsed: parsing one stream never delays another's timestamp.
 * Each check phase processes them for at most TURN_BUDGET_NS, in arrival order, and leaves the rest
 * for the next turn.
 *
 * It also estimates how late each data read was timestamped (`lagNs`): the time since the first read
 * of its poll phase (it waited in the kernel behind the earlier reads), plus the time this event loop
 * was busy (not waiting in the poll) since the previous poll phase's first read, which is how long
 * bytes that arrived meanwhile could have waited for it: parsing, timers, GC, or a caller's work on the
 * same loop. The accuracy bench compares the estimate with the simulator's ground truth.
 */
/**
 * This thread's event loop's busy time so far, ms: what `performance.eventLoopUtilization().active`
 * reports (now, minus the loop's start, minus its idle time), without the object that returns, whose
 * map differed between runs: the read path deoptimized at a run's first read ("wrong map", at 1 stream).
 */
function loopActiveMs(nowMs: number): number {
  const timing = performance.nodeTiming;
  return nowMs - timing.loopStart - timing.idleTime;
}

export class ArrivalInbox {
  private attempts: ArrivalSink[] = objectArray();
  private kinds: ArrivalKind[] = [];
  private payloads: unknown[] = objectArray();
  /**
   * Arrival times by position. A typed array: a run's inbox is built before its warm-up, and a plain
   * array of it would still hold small integers when the run's first double came, after the warm-up had
   * compiled push() for doubles (--trace-opt: "wrong map" at the first arrival of the window).
   */
  private times = new Float64Array(INITIAL_CAPACITY);
  /** Arrivals before this index were processed. */
  private head = 0;
  private scheduled = false;
  /** A read of the current poll phase was pushed (reset each time the check phase processes). */
  private phaseOpen = false;
  private readonly drainBound = () => this.drainTurn();
  /** Estimated lag of every data read, ns (see above); reset when the measured window begins. */
  readonly lagNs = new LagHistogram();

  // doubles from birth (see SendPacer.turnEndsMs)
  private turnStartNs = Number.NEGATIVE_INFINITY;
  /** The loop's busy time since the previous poll phase's first read, ns. */
  private turnBusyNs = Number.NEGATIVE_INFINITY;
  /** The loop's cumulative busy time at the previous poll phase's first read, ms (negative: none yet). */
  private lastActiveMs = Number.NEGATIVE_INFINITY;

  /**
   * When an open loop's next send is due, performance.now() ms (Infinity: none soon). Parsing stops
   * there, after at least one arrival, so that the send's turn is not spent on it: with a turn's full
   * budget taken just before it, a send came up to a budget late.
   */
  private sendDueMs = Number.POSITIVE_INFINITY;
  /**
   * When a loop that polls without sleeping (an open loop's last stretch, or busyPoll) last came round
   * to its check phase, performance.now() ms: bytes that arrived since waited at most that long, however
   * busy the loop counts as (spinning is never idle). Negative infinity: not polling.
   */
  private polledAtMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly turnBudgetNs: number = TURN_BUDGET_NS) {}

  /** A spinning loop reached its check phase: it has just polled every socket. */
  polled(): void {
    this.polledAtMs = performance.now();
  }

  /** The open loop's next send is due in `inUs` (null: none within a turn or two). */
  sendDueIn(inUs: number | null): void {
    this.sendDueMs = inUs === null ? Number.POSITIVE_INFINITY : performance.now() + inUs / 1000;
  }

  push(attempt: ArrivalSink, kind: ArrivalKind, payload: unknown, arrivalNs: number): void {
    if (!this.phaseOpen) {
      this.phaseOpen = true;
      // one clock read per poll phase serves both bounds
      const nowMs = performance.now();
      const active = loopActiveMs(nowMs);
      this.turnStartNs = arrivalNs;
      const busyNs = this.lastActiveMs < 0 ? 0 : (active - this.lastActiveMs) * 1e6;
      this.turnBusyNs = Math.min(busyNs, (nowMs - this.polledAtMs) * 1e6);
      this.lastActiveMs = active;
    }
    if (kind === ARRIVAL.data)
      this.lagNs.record(Math.max(1, Math.round(arrivalNs - this.turnStartNs + this.turnBusyNs)));
    const at = this.attempts.length;
    if (at === this.times.length) {
      const times = new Float64Array(2 * at);
      times.set(this.times);
      this.times = times;
    }
    this.times[at] = arrivalNs;
    this.attempts.push(attempt);
    this.kinds.push(kind);
    this.payloads.push(payload);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drainBound);
    }
  }

  /** Processes everything that arrived; called before cutting requests off, so none is lost. */
  drain(): void {
    this.work(Number.POSITIVE_INFINITY);
  }

  /** One check phase's share: what fits in the turn budget; the rest in the next turn. */
  private drainTurn(): void {
    this.scheduled = false;
    this.phaseOpen = false;
    this.work(Math.min(performance.now() + this.turnBudgetNs / 1e6, this.sendDueMs));
    if (this.head < this.attempts.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drainBound);
    }
  }

  /**
   * Works until `untilMs` (performance.now()), after at least one arrival: a fraction or Infinity,
   * never a small integer, as V8 compiled work() for one kind of number.
   */
  private work(untilMs: number): void {
    // `times` is read through `this`: a push during this work (an abort's error) may replace it
    const { attempts, kinds, payloads } = this;
    // always at least one, so that a backlog shrinks however slow each item is
    do {
      if (this.head >= attempts.length) break;
      const i = this.head++;
      const kind = kinds[i];
      const attempt = attempts[i];
      const payload = payloads[i];
      payloads[i] = null;
      if (kind === ARRIVAL.data) attempt.handleRead(payload as Buffer, this.times[i]);
      else if (kind === ARRIVAL.end) attempt.handleEnd();
      else attempt.handleTransportError(payload);
      // performance.now(): the same monotonic clock, without a BigInt per arrival on the token path
    } while (performance.now() < untilMs);
    if (this.head >= attempts.length) {
      attempts.length = 0;
      kinds.length = 0;
      payloads.length = 0;
      this.head = 0;
    }
  }
}
