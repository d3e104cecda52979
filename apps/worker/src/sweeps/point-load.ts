import type { ProfileSnapshot, SweepDimension } from '@teapot/contracts';
import type { Load } from '@teapot/measure';

/**
 * The load of one sweep point. `rate`: open-loop arrivals at `value` per second with the profile's
 * arrival process (its burstiness and in-flight cap too), Poisson when the profile's own load is
 * closed-loop. `concurrency`: `value` requests kept in flight (a closed loop; whole streams).
 */
export function pointLoad(dimension: SweepDimension, value: number, profileLoad: Load): Load {
  if (dimension === 'concurrency') return { kind: 'closed', concurrency: Math.max(1, Math.round(value)) };
  if (profileLoad.kind === 'closed') return { kind: 'open', ratePerS: value, arrival: 'poisson' };
  return { ...profileLoad, ratePerS: value };
}

/** The point run's snapshot: the sweep's, with the point's load in place of the profile's. */
export function pointSnapshot(
  stored: Record<string, unknown>,
  snapshot: ProfileSnapshot,
  dimension: SweepDimension,
  value: number,
): Record<string, unknown> {
  return { ...stored, load: pointLoad(dimension, value, snapshot.load) };
}
