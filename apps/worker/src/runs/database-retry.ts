import { isTransientDbError } from '@teapot/db';

export interface RetryWhileAwayOptions {
  /** Give up once the next attempt would start later than this long after the first. */
  giveUpAfterMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Called before each wait, with the failure and how many attempts failed so far. */
  onRetry?: (error: unknown, failures: number) => void;
}

/** First wait after a failed write; each next wait doubles, up to MAX_DELAY_MS. */
export const FIRST_DELAY_MS = 250;
export const MAX_DELAY_MS = 10_000;

/**
 * Runs `write` until it succeeds, retrying while the database is away (isTransientDbError: never
 * pool exhaustion, never a permanent error) with doubling waits, for at most `giveUpAfterMs`.
 * The last error is thrown when it is not transient or when the next wait would pass the limit.
 */
export async function retryWhileDatabaseIsAway<T>(
  write: () => Promise<T>,
  options: RetryWhileAwayOptions,
): Promise<{ value: T; failures: number }> {
  const giveUpAt = options.now() + options.giveUpAfterMs;
  let delayMs = FIRST_DELAY_MS;
  for (let failures = 0; ; failures++) {
    try {
      return { value: await write(), failures };
    } catch (error) {
      if (!isTransientDbError(error) || options.now() + delayMs > giveUpAt) throw error;
      options.onRetry?.(error, failures + 1);
      await options.sleep(delayMs);
      delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
    }
  }
}
