/** Addresses tracked at most; beyond it the quietest are forgotten first (memory stays bounded). */
const MAX_ADDRESSES = 10_000;
/**
 * Forgetting goes down to this many, so that failures from ever new addresses scan the map once per
 * thousand of them, not once each (10,000 buckets read per failure: 25,000 failures took 90 s of CPU).
 */
const AFTER_FORGETTING = MAX_ADDRESSES - 1_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Wrong API keys per client address: a token bucket of `perMinute` failures, refilled over a
 * minute. Valid keys never take a token, so they are never slowed while the address is in good
 * standing; once the bucket is empty every request from the address waits, valid or not (otherwise
 * guessing would go on). Per API process: several processes each allow `perMinute`.
 */
export class FailedAuthLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfterS(address: string): number {
    const tokens = this.tokensOf(address);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.refillPerMs / 1000);
  }

  /** Takes one token for a wrong key. */
  recordFailure(address: string): void {
    const tokens = this.tokensOf(address) - 1;
    this.buckets.delete(address);
    if (this.buckets.size >= MAX_ADDRESSES) this.forgetQuietest();
    this.buckets.set(address, { tokens, at: this.now() });
  }

  private tokensOf(address: string): number {
    const bucket = this.buckets.get(address);
    if (!bucket) return this.perMinute;
    return Math.min(this.perMinute, bucket.tokens + (this.now() - bucket.at) * this.refillPerMs);
  }

  /** Drops full buckets, then those that failed longest ago (Map order is insertion order). */
  private forgetQuietest(): void {
    for (const address of this.buckets.keys()) {
      if (this.tokensOf(address) >= this.perMinute) this.buckets.delete(address);
    }
    for (const address of this.buckets.keys()) {
      if (this.buckets.size <= AFTER_FORGETTING) break;
      this.buckets.delete(address);
    }
  }
}
