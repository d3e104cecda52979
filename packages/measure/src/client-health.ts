import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ClientHealth } from './types';

/** Timer period of the delay monitor; the histogram holds whole periods, so it is subtracted. */
const RESOLUTION_MS = 10;
/**
 * An idle loop shows ~1-1.5 ms P99 here (libuv timers tick in whole ms), so 5 ms is clearly the client
 * lagging, and at 5-50 ms inter-token latencies such lag is the same size as what is measured. One
 * 50 ms stall (a long GC) visibly moves a run's tail. Near a full core the loop cannot keep up.
 */
export const SATURATION = { p99DelayMs: 5, maxDelayMs: 50, cpuPercent: 95 } as const;

/** Watches the event loop and CPU from now until `stop()`. */
export function watchClientHealth(): { stop(): ClientHealth } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  return {
    stop(): ClientHealth {
      histogram.disable();
      const cpu = process.cpuUsage(cpuStart);
      const wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
      const cpuPercent = wallUs > 0 ? ((cpu.user + cpu.system) / wallUs) * 100 : 0;
      const excessMs = (ns: number) => (histogram.count === 0 ? 0 : Math.max(0, ns / 1e6 - RESOLUTION_MS));
      const eventLoopDelayMs = {
        p50: excessMs(histogram.percentile(50)),
        p99: excessMs(histogram.percentile(99)),
        max: excessMs(histogram.max),
        mean: excessMs(histogram.mean),
      };
      const cpuUs = cpu.user + cpu.system;
      return { eventLoopDelayMs, cpuPercent, cpuUs, ...saturation(eventLoopDelayMs, cpuPercent) };
    },
  };
}

export function saturation(
  delay: ClientHealth['eventLoopDelayMs'],
  cpuPercent: number,
): { saturated: boolean; saturatedReason?: string } {
  const reasons: string[] = [];
  if (delay.p99 > SATURATION.p99DelayMs) {
    reasons.push(`event-loop delay p99 ${delay.p99.toFixed(1)} ms > ${SATURATION.p99DelayMs} ms`);
  }
  if (delay.max > SATURATION.maxDelayMs) {
    reasons.push(`event-loop delay max ${delay.max.toFixed(1)} ms > ${SATURATION.maxDelayMs} ms`);
  }
  if (cpuPercent > SATURATION.cpuPercent) {
    reasons.push(`client CPU ${cpuPercent.toFixed(0)}% of one core > ${SATURATION.cpuPercent}%`);
  }
  return reasons.length === 0
    ? { saturated: false }
    : { saturated: true, saturatedReason: reasons.join('; ') };
}
