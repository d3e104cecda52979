import { monitorEventLoopDelay } from 'node:perf_hooks';
import { currentThreadCpuUs } from './thread-cpu';
import type { ClientHealth } from './types';

/** Timer period of the delay monitor; the histogram holds whole periods, so it is subtracted. */
const RESOLUTION_MS = 10;

/**
 * When the measuring client's own lag is large enough to matter. Calibrated with the accuracy bench
 * (bench/src/accuracy.ts prints P99 added delay against event-loop delay P99 for every client): a
 * token chunk's P99 timestamp error was 1.0-1.4x the loop's P99 delay for readers that timestamp
 * each read first (teapot/http1, the Node floor) and up to ~2.7x for undici at 512 streams, so
 * `timingErrorPerLoopDelay` takes 1.5 as the estimate. A run is flagged when that estimated error is
 * more than `shareOfGap` of the median gap between token chunks it measured (at a 20 ms step: more
 * than 5 ms), so its tail latencies may show the client rather than the endpoint; or when the client
 * used nearly a whole core, where the loop cannot keep up. Without a measured gap (no tokens), an
 * absolute `fallbackErrorMs` stands in.
 */
export const SATURATION = {
  timingErrorPerLoopDelay: 1.5,
  shareOfGap: 0.25,
  fallbackErrorMs: 5,
  cpuPercent: 95,
} as const;

/** What the monitor saw over the measured window; judged against the run's gaps by `judgeClientHealth`. */
export type ClientLoad = Omit<ClientHealth, 'saturated' | 'saturatedReason' | 'timingErrorP99Ms'>;

/** Watches this thread's event loop and CPU from now until `stop()`. */
export function watchClientHealth(): { stop(): ClientLoad } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
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
      return { eventLoopDelayMs, cpuPercent, cpuUs };
    },
  };
}

/**
 * Whether the client's lag matters for this run: `medianGapMs` is the median gap between token chunks
 * the run measured (null without one). The reason says what it means and what to do, in plain words.
 */
export function judgeClientHealth(load: ClientLoad, medianGapMs: number | null): ClientHealth {
  const delay = load.eventLoopDelayMs;
  const cpuPercent = load.cpuPercent ?? 0;
  const timingErrorP99Ms = SATURATION.timingErrorPerLoopDelay * delay.p99;
  const toleranceMs = medianGapMs === null ? SATURATION.fallbackErrorMs : SATURATION.shareOfGap * medianGapMs;
  const findings: string[] = [];
  if (timingErrorP99Ms > toleranceMs) {
    const against =
      medianGapMs === null
        ? `more than ${SATURATION.fallbackErrorMs} ms`
        : `more than ${Math.round(SATURATION.shareOfGap * 100)}% of the median gap between tokens (${medianGapMs.toFixed(1)} ms)`;
    findings.push(
      `its event loop ran late (P99 ${delay.p99.toFixed(1)} ms), so token timestamps may be late by about ` +
        `${timingErrorP99Ms.toFixed(1)} ms at P99, ${against}`,
    );
  }
  if (cpuPercent > SATURATION.cpuPercent) {
    findings.push(`it used ${cpuPercent.toFixed(0)}% of a CPU core, too busy to read every stream on time`);
  }
  const health: ClientHealth = { ...load, timingErrorP99Ms, saturated: findings.length > 0 };
  if (findings.length > 0) {
    health.saturatedReason =
      `The measuring client was the bottleneck: ${findings.join('; and ')}. The tail latencies of this run ` +
      '(P99 ITL, TPOT, TTFT) may show the client rather than the endpoint; compare it with care. To fix: ' +
      'measure fewer concurrent streams per client process (lower the concurrency, or run one benchmark per ' +
      'worker at a time with WORKER_CONCURRENCY=1), or give the client a CPU core of its own.';
  }
  return health;
}
