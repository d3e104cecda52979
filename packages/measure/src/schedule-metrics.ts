import { percentile } from '@teapot/run-definitions';
import { percentileSummary, sortedCopy } from './stats';
import type { PercentileSummary, RequestMetrics, RequestRecord, SendLateness } from './types';

/** A send later than this after its scheduled time counts as late: the open loop's timers have 1 ms resolution. */
export const LATE_SEND_THRESHOLD_MS = 1;

export interface ScheduleSummary {
  ttftFromScheduleMs: PercentileSummary | null;
  e2eFromScheduleMs: PercentileSummary | null;
  sendLateness: SendLateness;
}

/**
 * An open loop's figures from each request's scheduled time: lateness over every measured request
 * that was written (its write time minus its scheduled time), and TTFT/E2E plus that lateness over the
 * successful ones (`perRequest[i]` is `succeeded[i]`'s metrics), the latency a user arriving on
 * schedule saw.
 */
export function scheduleSummary(
  measured: RequestRecord[],
  succeeded: RequestRecord[],
  perRequest: RequestMetrics[],
): ScheduleSummary {
  const lateness = new Float64Array(measured.length);
  let late = 0;
  measured.forEach((r, i) => {
    const ms = (r.startUs - r.scheduledUs) / 1000;
    lateness[i] = ms;
    if (ms > LATE_SEND_THRESHOLD_MS) late++;
  });
  const ttft: number[] = [];
  const e2e: number[] = [];
  succeeded.forEach((r, i) => {
    const waitedUs = r.startUs - r.scheduledUs;
    const { ttftUs, e2eUs } = perRequest[i];
    if (ttftUs !== null) ttft.push((waitedUs + ttftUs) / 1000);
    if (e2eUs !== null) e2e.push((waitedUs + e2eUs) / 1000);
  });
  const sorted = sortedCopy(lateness);
  const n = sorted.length;
  return {
    ttftFromScheduleMs: percentileSummary(ttft),
    e2eFromScheduleMs: percentileSummary(e2e),
    sendLateness: {
      sent: n,
      late,
      thresholdMs: LATE_SEND_THRESHOLD_MS,
      p50Ms: n > 0 ? percentile(sorted, 0.5) : 0,
      p99Ms: n > 0 ? percentile(sorted, 0.99) : 0,
      maxMs: n > 0 ? sorted[n - 1] : 0,
    },
  };
}
