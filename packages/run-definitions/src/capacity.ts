/**
 * What a load sweep or a capacity search is asked: the SLO a load point must meet, and which points
 * to measure or how to search for the highest load that meets it. Each point is one ordinary run.
 */

/** The per-request latencies an SLO can bound. `itl` is the token-weighted inter-token latency. */
export const SLO_METRICS = ['ttft', 'tpot', 'itl', 'e2e'] as const;
export type SloMetric = (typeof SLO_METRICS)[number];

/** The percentiles a target may name: those every run summary keeps exactly (PercentileSummary). */
export const SLO_PERCENTILES = [50, 90, 95, 99, 99.9] as const;
export type SloPercentile = (typeof SLO_PERCENTILES)[number];

/** One bound: the run's `percentile` of `metric` must be at or under `limitMs`. */
export interface SloTarget {
  metric: SloMetric;
  percentile: SloPercentile;
  limitMs: number;
}

/**
 * A load point meets the SLO when every target holds and, if `minGoodShare` is set, at least that share
 * of its requests (failed ones included, as not good) met every target's limit on its own (goodput).
 */
export interface CapacitySlo {
  /** The preset this SLO was taken from, kept for display; the targets are what is judged. */
  preset?: string;
  targets: SloTarget[];
  /** In (0, 1]; absent: goodput is reported, not judged. */
  minGoodShare?: number;
}

/** What a point's load is: open-loop arrivals per second, or requests kept in flight. */
export const SWEEP_DIMENSIONS = ['rate', 'concurrency'] as const;
export type SweepDimension = (typeof SWEEP_DIMENSIONS)[number];

/**
 * `points`: measure each load in `points` (ascending), judged against `slo` when one is given; stops
 * early once a point is over-saturated (higher loads would only queue longer).
 * `capacity`: find the highest load in [lowest, highest] that meets `slo`, to within `tolerance`
 * (relative width of the final bracket), in at most `maxPoints` points.
 */
export type SweepSpec =
  | { kind: 'points'; dimension: SweepDimension; points: number[]; slo?: CapacitySlo }
  | {
      kind: 'capacity';
      dimension: SweepDimension;
      slo: CapacitySlo;
      lowest: number;
      highest: number;
      tolerance: number;
      maxPoints: number;
    };

/**
 * Why a sweep ended. `completed`: every listed point measured. `converged`: the bracket is within
 * tolerance. `over_saturated`: a point could not keep up with its offered load, so no higher one was
 * measured. `below_lowest`: the SLO failed at the lowest load. `above_highest`: it held at the highest.
 * `point_limit`: maxPoints used before converging (capacity is the best load known to pass).
 * `endpoint_failed`: a point's run failed (the points before it are kept). `aborted`: stopped from outside.
 */
export const SWEEP_STOP_REASONS = [
  'completed',
  'converged',
  'over_saturated',
  'below_lowest',
  'above_highest',
  'point_limit',
  'endpoint_failed',
  'aborted',
] as const;
export type SweepStopReason = (typeof SWEEP_STOP_REASONS)[number];
