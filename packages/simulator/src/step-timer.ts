/**
 * Fires a callback at an absolute instant of the monotonic clock. setTimeout covers the bulk of the
 * wait (it has 1 ms granularity and fires late), then an optional setImmediate spin covers the last
 * `spinNs`: it yields to I/O on every turn, so it costs CPU only during that last stretch.
 */
const MS = 1_000_000n;

export class StepTimer {
  private target = 0n;
  private callback: (() => void) | null = null;
  private timeout: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;

  constructor(private readonly spinNs: bigint) {}

  at(targetNs: bigint, callback: () => void): void {
    this.cancel();
    this.target = targetNs;
    this.callback = callback;
    // an overdue step still waits one turn of the loop, so catching up never starves I/O
    if (targetNs <= process.hrtime.bigint()) this.immediate = setImmediate(this.check);
    else this.check();
  }

  cancel(): void {
    if (this.timeout) clearTimeout(this.timeout);
    if (this.immediate) clearImmediate(this.immediate);
    this.timeout = null;
    this.immediate = null;
    this.callback = null;
  }

  private readonly check = (): void => {
    this.timeout = null;
    this.immediate = null;
    const remaining = this.target - process.hrtime.bigint();
    if (remaining > 0n) {
      if (remaining > this.spinNs + MS) {
        this.timeout = setTimeout(this.check, Number((remaining - this.spinNs) / MS));
      } else if (this.spinNs > 0n) {
        this.immediate = setImmediate(this.check);
      } else {
        this.timeout = setTimeout(this.check, 1);
      }
      return;
    }
    const callback = this.callback;
    this.callback = null;
    callback?.();
  };
}
