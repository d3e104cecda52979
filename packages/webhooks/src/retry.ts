/**
 * Delays before attempts 2, 3, ... of a delivery (Svix's schedule: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h, about 28 hours in all). `WEBHOOK_RETRY_SCHEDULE` replaces it.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** Each delay is multiplied by a random factor in [1 - JITTER, 1 + JITTER], so retries of many deliveries spread out. */
export const RETRY_JITTER = 0.2;
/** A Retry-After longer than this is cut to it. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses "5s,5m,30m,2h" (units ms, s, m, h) into milliseconds; throws naming the bad item. */
export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map((item) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(item);
    if (!match) throw new Error(`"${item.trim()}" is not a delay such as 500ms, 5s, 5m or 2h.`);
    return Math.round(Number(match[1]) * UNIT_MS[match[2]]);
  });
  if (delays.length > 50) throw new Error('A retry schedule has at most 50 delays.');
  return delays;
}

/** What one attempt's outcome means for the delivery. */
export type AttemptVerdict =
  | { kind: 'succeeded' }
  /** 410 Gone: the receiver asks never to be called again; the subscription is disabled. */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'given_up' };

export interface AttemptOutcome {
  statusCode: number | null;
  /** From a Retry-After header, when the response had one. */
  retryAfterMs: number | null;
}

/**
 * The verdict after attempt `attempt` (1-based): 2xx succeeded; 410 gone; anything else (no
 * response, timeout, 3xx since redirects are not followed, 4xx, 5xx) is retried after the
 * schedule's next delay with jitter, or, for 429 and 503 with Retry-After, after exactly that
 * (capped at a day); given up when the schedule is exhausted.
 */
export function attemptVerdict(
  attempt: number,
  outcome: AttemptOutcome,
  schedule: readonly number[],
  random: () => number = Math.random,
): AttemptVerdict {
  const status = outcome.statusCode;
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  if (attempt > schedule.length) return { kind: 'given_up' };
  if ((status === 429 || status === 503) && outcome.retryAfterMs !== null) {
    return { kind: 'retry', delayMs: Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS) };
  }
  const base = schedule[attempt - 1];
  return { kind: 'retry', delayMs: Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random())) };
}

/** Retry-After as delay-seconds or an HTTP date, in ms from `nowMs`; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}
