import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';

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
 * Arrivals wait here until the event loop's check phase, so that every socket read of one poll phase
 * is timestamped before any of them is parsed: parsing one stream never delays another's timestamp.
 *
 * It also estimates how late each data read was timestamped (`lagNs`): the time since the first read
 * of its poll phase (it waited in the kernel behind the earlier reads), plus the time this event loop
 * was busy (not waiting in the poll) since the previous poll phase's first read, which is how long
 * bytes that arrived meanwhile could have waited for it: parsing, timers, GC, or a caller's work on the
 * same loop. The accuracy bench compares the estimate with the simulator's ground truth.
 */
export class ArrivalInbox {
  private attempts: ArrivalSink[] = [];
  private kinds: ArrivalKind[] = [];
  private payloads: unknown[] = [];
  private times: number[] = [];
  private scheduled = false;
  private readonly drainBound = () => this.drain();
  /** Estimated lag of every data read, ns (see above); reset when the measured window begins. */
  lagNs: RecordableHistogram = createHistogram();
  private turnStartNs = 0;
  /** The loop's busy time since the previous poll phase's first read, ns. */
  private turnBusyNs = 0;
  /** The loop's cumulative busy time at the previous poll phase's first read, ms (-1: none yet). */
  private lastActiveMs = -1;

  push(attempt: ArrivalSink, kind: ArrivalKind, payload: unknown, arrivalNs: number): void {
    if (!this.scheduled) {
      const { active } = performance.eventLoopUtilization();
      this.turnStartNs = arrivalNs;
      this.turnBusyNs = this.lastActiveMs < 0 ? 0 : (active - this.lastActiveMs) * 1e6;
      this.lastActiveMs = active;
    }
    if (kind === ARRIVAL.data)
      this.lagNs.record(Math.max(1, Math.round(arrivalNs - this.turnStartNs + this.turnBusyNs)));
    this.attempts.push(attempt);
    this.kinds.push(kind);
    this.payloads.push(payload);
    this.times.push(arrivalNs);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drainBound);
    }
  }

  /** Processes everything that arrived; also called before cutting requests off, so none is lost. */
  drain(): void {
    const { attempts, kinds, payloads, times } = this;
    for (let i = 0; i < attempts.length; i++) {
      const kind = kinds[i];
      if (kind === ARRIVAL.data) attempts[i].handleRead(payloads[i] as Buffer, times[i]);
      else if (kind === ARRIVAL.end) attempts[i].handleEnd();
      else attempts[i].handleTransportError(payloads[i]);
    }
    attempts.length = 0;
    kinds.length = 0;
    payloads.length = 0;
    times.length = 0;
    this.scheduled = false;
  }
}
