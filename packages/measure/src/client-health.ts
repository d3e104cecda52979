import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LagHistogram } from './speed/lag-histogram';
import { currentThreadCpuUs } from './thread-cpu';
import type { ClientHealth } from './types';

/** Timer period of the delay monitor; the histogram holds whole periods, so it is subtracted. */
const RESOLUTION_MS = 10;

/**
 * When the measuring client's own lag matters. The estimate of how late a token timestamp is comes from
 * the reads themselves (ArrivalInbox.lagNs: how long each read waited behind the earlier reads of its
 * poll phase and for the loop's other work), and its P99 is checked against the simulator's ground truth
 * by the accuracy bench (`npm run bench:accuracy`, "saturation flag" lines) and by
 * src/saturation.spec.ts. A run is flagged when the estimated P99 timestamp error is over `boundMs`:
 * beyond it, P99 inter-token latencies of a few tens of ms are visibly shifted by the client. The
 * event-loop delay is kept as context: on a shared machine it also holds the timer's own wake-up
 * latency, which token reads (woken by the data) do not pay, so it overstated the error 2-4x.
 */
export const SATURATION = {
  boundMs: 5,
} as const;

/** What the monitors saw over the measured window; judged by `judgeClientHealth`. */
export type ClientLoad = Omit<ClientHealth, 'saturated' | 'saturatedReason' | 'timingErrorP99Ms'>;

/** Watches this thread's event loop, CPU and read lag (reset now) from now until `stop()`. */
export function watchClientHealth(readLagNs?: LagHistogram): { stop(): ClientLoad } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  readLagNs?.reset();
  const cpuStart = currentThreadCpuUs();
  const wallStart = process.hrtime.bigint();
  return {
    stop(): ClientLoad {
      histogram.disable();
      const cpuUs = Math.max(0, currentThreadCpuUs() - cpuStart);
      const wallUs = Number(process.hrtime.bigint() - wallStart) / 1000;
      const cpuPercent = wallUs > 0 ? (cpuUs / wallUs) * 100 : 0;
      const excessMs = (ns: number) => (histogram.count === 0 ? 0 : Math.max(0, ns / 1e6 - RESOLUTION_MS));
      const eventLoopDelayMs = {
        p50: excessMs(histogram.percentile(50)),
        p99: excessMs(histogram.percentile(99)),
        max: excessMs(histogram.max),
        mean: excessMs(histogram.mean),
      };
      const load: ClientLoad = { eventLoopDelayMs, cpuPercent, cpuUs };
      if (readLagNs && readLagNs.count > 0) {
        load.readLagMs = {
          p50: readLagNs.percentile(50) / 1e6,
          p99: readLagNs.percentile(99) / 1e6,
          max: readLagNs.max / 1e6,
        };
      }
      return load;
    },
  };
}

/**
 * Whether the client's lag matters for this run, with the reason in plain words: what happened, what it
 * means and what to do. Without reads to judge by (no response bytes), the event-loop delay stands in.
 */
export function judgeClientHealth(load: ClientLoad): ClientHealth {
  const timingErrorP99Ms = load.readLagMs?.p99 ?? load.eventLoopDelayMs.p99;
  const saturated = timingErrorP99Ms > SATURATION.boundMs;
  const health: ClientHealth = { ...load, timingErrorP99Ms, saturated };
  if (saturated) {
    const cpu =
      load.cpuPercent === undefined ? '' : ` (it used ${load.cpuPercent.toFixed(0)}% of a CPU core)`;
    health.saturatedReason =
      `The measuring client could not read the streams on time${cpu}: its token timestamps are late by ` +
      `about ${timingErrorP99Ms.toFixed(1)} ms at P99, more than the ${SATURATION.boundMs} ms teapot accepts. ` +
      'So the tail latencies of this run (P99 ITL, TPOT, TTFT) may show the client rather than the endpoint; ' +
      'the medians are much less affected. Compare it with care. To fix: measure fewer concurrent streams per ' +
      'client process (lower the concurrency, or run one benchmark per worker at a time with ' +
      'WORKER_CONCURRENCY=1), or give the client a CPU core of its own.';
  }
  return health;
}
