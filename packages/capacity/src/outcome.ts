import type { SweepSpec, SweepStopReason } from '@teapot/run-definitions';
import type { SweepPoint } from './point';
import { bracketOf, nextSweepStep, type Bracket } from './search';

export interface SweepOutcome {
  reason: SweepStopReason;
  /** The highest load that met the SLO (req/s or streams); null when none did or the sweep has no SLO. */
  capacity: number | null;
  bracket: Bracket;
  /** Cost per million output tokens at the capacity point; null without a price, a GPU count or a capacity. */
  costPerMillionOutputTokensUsdAtCapacity: number | null;
  /** Indexes (measuring order) of the Pareto-optimal points. */
  frontier: number[];
}

/**
 * A finished sweep's result. `ended` is the caller's reason when it stopped the sweep itself (a point
 * failed, or it was aborted): the points measured are kept and bracketed, but no capacity is claimed.
 */
export function sweepOutcome(
  spec: SweepSpec,
  points: readonly SweepPoint[],
  ended?: Extract<SweepStopReason, 'endpoint_failed' | 'aborted'>,
): SweepOutcome {
  const step = nextSweepStep(spec, points);
  const reason: SweepStopReason = ended ?? (step.kind === 'done' ? step.reason : 'point_limit');
  const bracket = step.kind === 'done' ? step.bracket : bracketOf(points);
  const capacity = ended ? null : step.kind === 'done' ? step.capacity : bracket.passed;
  const atCapacity = capacity === null ? undefined : points.find((p) => p.load === capacity);
  return {
    reason,
    capacity,
    bracket,
    costPerMillionOutputTokensUsdAtCapacity: atCapacity?.costPerMillionOutputTokensUsd ?? null,
    frontier: frontier(points),
  };
}

/**
 * vLLM's Pareto frontier: the points no other point beats on both output tokens/s per user and per GPU
 * (per GPU unknown: total tokens/s stands in, which orders the points the same way).
 */
export function frontier(points: readonly SweepPoint[]): number[] {
  const axes = points.map((p) => ({
    user: p.tokensPerSPerUser,
    gpu: p.tokensPerSPerGpu ?? p.outputTokensPerS,
  }));
  const onFrontier: number[] = [];
  axes.forEach((a, i) => {
    if (a.user === null || !(a.gpu > 0)) return;
    const beaten = axes.some(
      (b, j) =>
        j !== i &&
        b.user !== null &&
        b.user >= a.user! &&
        b.gpu >= a.gpu &&
        (b.user > a.user! || b.gpu > a.gpu),
    );
    if (!beaten) onFrontier.push(i);
  });
  return onFrontier;
}
