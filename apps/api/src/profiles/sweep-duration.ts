import type { SweepSpec } from '@teapot/contracts';
import type { Load } from '@teapot/measure';

/** Per point: starting the measuring thread, connecting, storing the run and queueing the next step. */
export const POINT_SETUP_S = 5;

/** What bounds a sweep profile's points (the profile as it will be stored). */
export interface SweepBounds {
  load: Load;
  requestCount: number | null;
  durationS: number | null;
  warmupRequests: number;
  timeoutMs: number;
}

/** The longest a sweep can take, and how that was computed (said in the 400 and in the README). */
export type SweepDuration =
  | { bounded: true; seconds: number; points: number; how: string }
  /** A point whose measuring window nothing bounds: concurrency points measured by requestCount alone. */
  | { bounded: false };

/**
 * An upper bound on a sweep's wall time: the sum over its points of the measuring window (durationS,
 * or requestCount / rate for a rate point, whichever ends first), the warm-up (rounds of
 * `warmupRequests` at the point's concurrency, each up to timeoutMs), the last requests' drain (up
 * to timeoutMs) and POINT_SETUP_S. A capacity search counts maxPoints points at its lowest load,
 * where each point is longest.
 */
export function sweepDuration(spec: SweepSpec, bounds: SweepBounds): SweepDuration {
  const loads =
    spec.kind === 'points' ? spec.points : Array.from({ length: spec.maxPoints }, () => spec.lowest);
  const timeoutS = bounds.timeoutMs / 1000;
  let window = 0;
  let warmup = 0;
  for (const load of loads) {
    const pointWindow = windowS(spec.dimension, load, bounds);
    if (pointWindow === null) return { bounded: false };
    window += pointWindow;
    warmup += warmupRounds(spec.dimension, load, bounds) * timeoutS;
  }
  const drain = loads.length * timeoutS;
  const setup = loads.length * POINT_SETUP_S;
  const seconds = Math.ceil(window + warmup + drain + setup);
  const how =
    `${loads.length} points: measuring windows ${whole(window)} s + warm-up ${whole(warmup)} s + ` +
    `the last requests' timeout ${whole(timeoutS)} s and ${POINT_SETUP_S} s of set-up per point`;
  return { bounded: true, seconds, points: loads.length, how };
}

function windowS(dimension: SweepSpec['dimension'], load: number, bounds: SweepBounds): number | null {
  const byCount = dimension === 'rate' && bounds.requestCount !== null ? bounds.requestCount / load : null;
  if (byCount === null) return bounds.durationS;
  return bounds.durationS === null ? byCount : Math.min(byCount, bounds.durationS);
}

/** The warm-up is a closed loop: at the point's concurrency, or a rate point's in-flight cap. */
function warmupRounds(dimension: SweepSpec['dimension'], load: number, bounds: SweepBounds): number {
  if (bounds.warmupRequests === 0) return 0;
  const concurrency =
    dimension === 'concurrency'
      ? Math.max(1, Math.round(load))
      : bounds.load.kind === 'open'
        ? (bounds.load.maxConcurrency ?? bounds.warmupRequests)
        : bounds.warmupRequests;
  return Math.ceil(bounds.warmupRequests / concurrency);
}

function whole(seconds: number): string {
  return String(Math.ceil(seconds));
}
