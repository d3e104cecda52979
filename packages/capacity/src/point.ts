import type {
  CapacitySlo,
  PercentileSummary,
  RunSummary,
  Slo,
  SloMetric,
  SloPercentile,
  SloTarget,
  SweepDimension,
} from '@teapot/run-definitions';
import { saturationOf, type PointRequest, type Saturation } from './saturation';

export type { PointRequest, Saturation } from './saturation';

/** What one measured load point is judged from: the run's summary and its measured requests. */
export interface PointInput {
  dimension: SweepDimension;
  /** The offered load: arrivals per second (rate) or streams kept in flight (concurrency). */
  load: number;
  summary: RunSummary;
  /** The measured requests (warm-up excluded), in issue order. */
  requests: PointRequest[];
}

/** What a GPU-hour costs and how many GPUs serve; either null: no cost is computed. */
export interface CostBasis {
  gpus: number | null;
  usdPerGpuHour: number | null;
}

export interface TargetResult extends SloTarget {
  /** The run's exact percentile of the metric (numpy's linear method); null: no request to take it from. */
  valueMs: number | null;
  met: boolean;
}

/** One load point's figures, JSON-safe (stored as `runs.sweep_point`). */
export interface SweepPoint {
  dimension: SweepDimension;
  load: number;
  requests: number;
  succeeded: number;
  failed: number;
  /** Completed requests per second of the measured window. */
  achievedRps: number;
  outputTokensPerS: number;
  /** Streams in flight on average: the load itself for concurrency, sum of durations / window for rate. */
  meanInFlight: number | null;
  targets: TargetResult[];
  /** Requests that met every target's limit on their own / measured requests (failures count as not good). */
  goodShare: number | null;
  goodputRps: number | null;
  /** Whether the point meets the SLO; null when the sweep has none. */
  met: boolean | null;
  /** Why it did not, in words (empty when it did or there is no SLO). */
  missed: string[];
  saturation: Saturation;
  /** vLLM's Pareto axes: output tokens/s divided by streams in flight, and by GPUs. */
  tokensPerSPerUser: number | null;
  tokensPerSPerGpu: number | null;
  gpus: number | null;
  /** USD per million output tokens at this point's throughput; null without a price or a GPU count. */
  costPerMillionOutputTokensUsd: number | null;
}

/**
 * A point where more than this share of requests failed does not meet an SLO whatever its latencies:
 * an endpoint shedding load is not serving it. With minGoodShare set, failures already count as not good.
 */
export const MAX_FAILED_SHARE = 0.01;

const PERCENTILE_FIELD: Readonly<Record<SloPercentile, keyof PercentileSummary>> = {
  50: 'p50',
  90: 'p90',
  95: 'p95',
  99: 'p99',
  99.9: 'p999',
};

const SUMMARY_FIELD: Readonly<Record<SloMetric, 'ttftMs' | 'tpotMs' | 'itlMs' | 'e2eMs'>> = {
  ttft: 'ttftMs',
  tpot: 'tpotMs',
  itl: 'itlMs',
  e2e: 'e2eMs',
};

/**
 * The per-request limits a request must meet to count as good: each metric's loosest target (the
 * limit any single request is allowed), ITL meaning every gap of the request (measure's Slo).
 */
export function requestLimits(slo: CapacitySlo): Slo {
  const limits: Slo = {};
  for (const target of slo.targets) {
    const field = SUMMARY_FIELD[target.metric];
    limits[field] = Math.max(limits[field] ?? 0, target.limitMs);
  }
  return limits;
}

/** The GPUs a configuration serves on: its GPU count, else tensor x pipeline parallel, else unknown. */
export function gpuCountOf(config: {
  gpuCount?: number | null;
  tensorParallel?: number | null;
  pipelineParallel?: number | null;
}): number | null {
  if (config.gpuCount != null && config.gpuCount > 0) return config.gpuCount;
  if (config.tensorParallel == null && config.pipelineParallel == null) return null;
  return (config.tensorParallel ?? 1) * (config.pipelineParallel ?? 1);
}

export function targetValueMs(summary: RunSummary, target: Pick<SloTarget, 'metric' | 'percentile'>) {
  const distribution = summary[SUMMARY_FIELD[target.metric]];
  return distribution === null ? null : (distribution[PERCENTILE_FIELD[target.percentile]] as number);
}

export function pointFigures(input: PointInput, slo?: CapacitySlo, cost?: CostBasis): SweepPoint {
  const { summary } = input;
  // Requests the window cut off have no outcome to judge (saturationOf still sees them arrive).
  const requests = input.requests.filter((r) => !r.cut);
  const measured = requests.length;
  const succeeded = requests.filter((r) => r.succeeded).length;
  const windowUs = summary.durationS * 1e6;
  const meanInFlight =
    input.dimension === 'concurrency'
      ? input.load
      : windowUs > 0
        ? requests.reduce((sum, r) => sum + (r.e2eUs ?? 0), 0) / windowUs
        : null;
  const targets = (slo?.targets ?? []).map((target) => {
    const valueMs = targetValueMs(summary, target);
    return { ...target, valueMs, met: valueMs !== null && valueMs <= target.limitMs };
  });
  const good = requests.filter((r) => r.good).length;
  const goodShare = slo && measured > 0 ? good / measured : null;
  const goodputRps = slo && summary.durationS > 0 ? good / summary.durationS : null;
  const saturation = saturationOf(input);
  const failed = measured - succeeded;
  const missed: string[] = [];
  if (slo) {
    for (const t of targets) {
      if (!t.met) missed.push(`${t.metric} p${t.percentile} ${formatMs(t.valueMs)} > ${t.limitMs} ms`);
    }
    if (slo.minGoodShare !== undefined && (goodShare ?? 0) < slo.minGoodShare) {
      missed.push(`goodput ${percent(goodShare ?? 0)} < ${percent(slo.minGoodShare)} of requests`);
    } else if (slo.minGoodShare === undefined && measured > 0 && failed / measured > MAX_FAILED_SHARE) {
      missed.push(`${percent(failed / measured)} of requests failed`);
    }
    if (measured === 0) missed.push('no request was measured');
    if (saturation.saturated) missed.push(`over-saturated: ${saturation.reason}`);
  }
  const gpus = cost?.gpus ?? null;
  const tokensPerS = summary.outputTokensPerS;
  return {
    dimension: input.dimension,
    load: input.load,
    requests: measured,
    succeeded,
    failed,
    achievedRps: summary.requestsPerS,
    outputTokensPerS: tokensPerS,
    meanInFlight,
    targets,
    goodShare,
    goodputRps,
    met: slo ? missed.length === 0 : null,
    missed,
    saturation,
    tokensPerSPerUser: meanInFlight && meanInFlight > 0 ? tokensPerS / meanInFlight : null,
    tokensPerSPerGpu: gpus !== null && gpus > 0 ? tokensPerS / gpus : null,
    gpus,
    costPerMillionOutputTokensUsd: costPerMillionOutputTokens(tokensPerS, cost),
  };
}

/** USD per million output tokens: what the GPUs cost per second over the tokens they make per second. */
export function costPerMillionOutputTokens(outputTokensPerS: number, cost?: CostBasis): number | null {
  if (!cost || cost.gpus === null || cost.usdPerGpuHour === null) return null;
  if (!(cost.gpus > 0) || !(outputTokensPerS > 0) || !(cost.usdPerGpuHour >= 0)) return null;
  return ((cost.gpus * cost.usdPerGpuHour) / 3600 / outputTokensPerS) * 1e6;
}

function formatMs(value: number | null): string {
  return value === null ? 'none' : `${Number(value.toPrecision(4))} ms`;
}

function percent(share: number): string {
  return `${Number((share * 100).toPrecision(3))}%`;
}
