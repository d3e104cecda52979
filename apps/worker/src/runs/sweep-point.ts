import { gpuCountOf, pointFigures, pointRequestsOf, type SweepPoint } from '@teapot/capacity';
import { parseProfileSnapshot, sweepSpecSchema } from '@teapot/contracts';
import type { RunResult } from '@teapot/measure';
import type { RunToProcess } from './run-repository';

/**
 * A sweep point's figures from the result in hand: each measured request judged against the SLO's
 * per-request limits (good: succeeded and within every limit), the GPUs of the run's serving
 * configuration (its GPU count, else TP x PP) and their price. Throws when the run's sweep spec or
 * snapshot cannot be read.
 */
export function sweepPointFigures(
  run: Pick<RunToProcess, 'sweep' | 'profileSnapshot' | 'config'>,
  result: RunResult,
): SweepPoint {
  const spec = sweepSpecSchema.parse(run.sweep?.spec);
  const { load } = parseProfileSnapshot(run.profileSnapshot);
  return pointFigures(
    {
      dimension: spec.dimension,
      load: load.kind === 'open' ? load.ratePerS : load.concurrency,
      summary: result.summary,
      requests: pointRequestsOf(result.requests, spec.slo),
    },
    spec.slo,
    {
      gpus: run.config ? gpuCountOf(run.config) : null,
      usdPerGpuHour: run.config?.usdPerGpuHour ?? null,
    },
  );
}
