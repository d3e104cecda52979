import { clockNs } from './speed/clock';
import type { RequestContext, StreamAttempt } from './stream-request';
import type { RunOptions } from './types';

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_STALL_TIMEOUT_MS = 30_000;

/** Array.some over the requests in flight, without copying the set on the measuring loop. */
function anyInFlight(inFlight: Set<StreamAttempt>, test: (attempt: StreamAttempt) => boolean): boolean {
  for (const attempt of inFlight) if (test(attempt)) return true;
  return false;
}

/**
 * One timer for every request's timeout and stall check, instead of a timer per request: the one
 * unbudgeted parse of the measuring loop (a request overdue for its timeout or stall check).
 */
export function startWatchdog(
  options: Pick<RunOptions, 'timeoutMs' | 'stallTimeoutMs'>,
  context: RequestContext,
  inFlight: Set<StreamAttempt>,
): NodeJS.Timeout {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const periodMs = Math.min(250, Math.max(10, Math.floor(Math.min(timeoutMs, stallMs) / 10)));
  const overdue = (attempt: StreamAttempt, nowNs: number): 'timeout' | 'stream_stalled' | null => {
    if (nowNs - attempt.startNs > timeoutMs * 1e6) return 'timeout';
    if (attempt.lastArrivalNs >= 0 && nowNs - attempt.lastArrivalNs > stallMs * 1e6) return 'stream_stalled';
    return null;
  };
  return setInterval(() => {
    const nowNs = clockNs(context.anchorNs);
    if (!anyInFlight(inFlight, (attempt) => overdue(attempt, nowNs) !== null)) return;
    // Only now, and unbudgeted: an overdue attempt's end may be waiting in the inbox, and it must
    // settle as what arrived, not as a timeout. Draining on every tick would parse a loaded run's
    // whole backlog in one piece, every 250 ms, while reads wait for their timestamps.
    context.inbox.drain();
    for (const attempt of inFlight) {
      const kind = overdue(attempt, nowNs);
      if (kind === 'timeout') attempt.fail(kind, `no complete response within ${timeoutMs} ms`);
      else if (kind === 'stream_stalled') attempt.fail(kind, `no bytes for ${stallMs} ms`);
    }
  }, periodMs);
}
