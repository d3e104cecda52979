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
 */
export class ArrivalInbox {
  private attempts: ArrivalSink[] = [];
  private kinds: ArrivalKind[] = [];
  private payloads: unknown[] = [];
  private times: number[] = [];
  private scheduled = false;
  private readonly drainBound = () => this.drain();

  push(attempt: ArrivalSink, kind: ArrivalKind, payload: unknown, arrivalNs: number): void {
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
