import { parseProfileSnapshot } from '@teapot/contracts';
import { requestMetrics, type RunResult } from '@teapot/measure';
import type { LatencyMetric } from '../metrics/run-histograms';
import type { RunToProcess } from '../runs/run-repository';

/** Which run a figure belongs to, by the names a dashboard groups on (never the run id: one series per run). */
export interface RunGroup {
  endpointId: string;
  endpoint: string;
  profileId: string;
  profile: string;
  configVersion: number;
  model: string;
  apiKind: 'chat' | 'completions';
  baseUrl: string;
  /** The serving engine of the configuration (vllm, sglang...), when it says. */
  engine: string | null;
}

/** One measured run's figures, in seconds, as the exports need them: samples for histograms, totals for counters. */
export interface RunFigures {
  runId: string;
  status: string;
  group: RunGroup;
  /**
   * Samples in seconds: `ttft`, `tpot` (2+ timed tokens) and `e2e` one per successful measured request,
   * `itl` one per token after each request's first token chunk (a chunk's gap split over its tokens).
   */
  samples: Record<LatencyMetric, ArrayLike<number>>;
  outputTokensPerS: number;
  requests: { succeeded: number; failed: number; incomplete: number };
  /** Failed requests by error class. */
  errorsByClass: Record<string, number>;
  clientSaturated: boolean;
}

/**
 * The figures of a stored run from the result in hand: the same requests the run summary counts
 * (measured, warm-up excluded; latencies of successful requests only), so their percentiles are the
 * stored ones. Null for a run without a profile (nothing to group it by).
 */
export function runFiguresOf(
  run: Pick<RunToProcess, 'id' | 'profileId' | 'profileSnapshot' | 'endpoint' | 'config'>,
  result: RunResult,
  status: string,
): RunFigures | null {
  if (run.profileId === null || run.config === null) return null;
  const ttftS: number[] = [];
  const tpotS: number[] = [];
  const e2eS: number[] = [];
  const itl: Float64Array[] = [];
  for (const record of result.requests) {
    if (record.warmup || record.outcome !== 'ok') continue;
    const metrics = requestMetrics(record);
    if (metrics.ttftUs !== null) ttftS.push(metrics.ttftUs / 1e6);
    if (metrics.tpotUs !== null) tpotS.push(metrics.tpotUs / 1e6);
    if (metrics.e2eUs !== null) e2eS.push(metrics.e2eUs / 1e6);
    itl.push(metrics.itlUs);
  }
  const itlS = new Float64Array(itl.reduce((sum, samples) => sum + samples.length, 0));
  let at = 0;
  for (const samples of itl) for (const us of samples) itlS[at++] = us / 1e6;
  const { summary } = result;
  return {
    runId: run.id,
    status,
    group: {
      endpointId: run.endpoint.id,
      endpoint: run.endpoint.name,
      profileId: run.profileId,
      profile: parseProfileSnapshot(run.profileSnapshot).name,
      configVersion: run.config.version,
      model: run.endpoint.model,
      apiKind: run.endpoint.apiKind,
      baseUrl: run.endpoint.baseUrl,
      engine: run.config.engine,
    },
    samples: { ttft: ttftS, tpot: tpotS, e2e: e2eS, itl: itlS },
    outputTokensPerS: summary.outputTokensPerS,
    requests: {
      succeeded: summary.requests.succeeded,
      failed: summary.requests.failed,
      incomplete: summary.requests.incomplete,
    },
    errorsByClass: Object.fromEntries(
      Object.entries(summary.errorsByClass).filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0),
    ),
    clientSaturated: result.client.saturated,
  };
}
