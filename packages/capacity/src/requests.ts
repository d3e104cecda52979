import { meetsSlo, requestMetrics, type RequestRecord } from '@teapot/measure';
import type { CapacitySlo } from '@teapot/run-definitions';
import { requestLimits, type PointRequest } from './point';

/**
 * What a point is judged from, per measured request of a run (warm-up left out): its timings, and
 * whether it met every per-request limit of the SLO (measure's meetsSlo with requestLimits(slo)).
 */
export function pointRequestsOf(records: readonly RequestRecord[], slo?: CapacitySlo): PointRequest[] {
  const limits = slo ? requestLimits(slo) : undefined;
  return records
    .filter((record) => !record.warmup)
    .map((record) => {
      const metrics = requestMetrics(record);
      const succeeded = record.outcome === 'ok';
      return {
        scheduledUs: record.scheduledUs,
        startUs: record.startUs,
        ttftUs: metrics.ttftUs,
        e2eUs: metrics.e2eUs,
        succeeded,
        good: succeeded && limits !== undefined && meetsSlo(metrics, limits),
        cut: record.outcome === 'incomplete',
      };
    });
}
