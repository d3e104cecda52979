import { nextSweepStep, sweepOutcome, type SweepPoint } from '@teapot/capacity';
import {
  InvalidSnapshotError,
  isFinalRunStatus,
  parseProfileSnapshot,
  sweepSpecSchema,
  type ProfileSnapshot,
  type SweepSpec,
} from '@teapot/contracts';
import type { SweepFinish, SweepPointRun, SweepWithPoints } from '@teapot/db';
import { pointSnapshot } from './point-load';

/** What a sweep's next step is, decided from the sweep and its points alone. */
export type SweepAction =
  /** The last point's run has not ended: its end queues the next step. */
  | { kind: 'wait'; run: SweepPointRun }
  /** Measure point `index` with this snapshot. */
  | { kind: 'measure'; index: number; value: number; snapshot: Record<string, unknown> }
  | { kind: 'finish'; outcome: SweepFinish };

/**
 * The rules of a sweep's step, in order: a point still measuring is waited for; an aborted point aborts
 * the sweep, a failed one fails it (`endpoint_failed`, with the run's classified error; the points
 * before it stay); otherwise the search (nextSweepStep of @teapot/capacity) names the next load or
 * says it is done, and the outcome (sweepOutcome) is stored.
 */
export function planSweep(sweep: SweepWithPoints): SweepAction {
  let spec: SweepSpec;
  let snapshot: ProfileSnapshot;
  try {
    spec = parseSpec(sweep.spec);
    snapshot = parseProfileSnapshot(sweep.profileSnapshot);
  } catch (error) {
    return unrunnable(error instanceof Error ? error.message : String(error));
  }
  const last = sweep.points.at(-1);
  if (last && !isFinalRunStatus(last.status)) return { kind: 'wait', run: last };
  if (last?.status === 'aborted') return ended('aborted', 'aborted', last);
  if (last?.status === 'failed') return ended('failed', 'endpoint_failed', last);

  const points: SweepPoint[] = [];
  for (const point of sweep.points) {
    if (point.point === null) {
      return unrunnable(`point ${point.index} (run ${point.runId}) was stored without its figures`);
    }
    points.push(point.point as unknown as SweepPoint);
  }
  const step = nextSweepStep(spec, points);
  if (step.kind === 'measure') {
    const stored = sweep.profileSnapshot as Record<string, unknown>;
    return {
      kind: 'measure',
      index: sweep.points.length,
      value: step.load,
      snapshot: pointSnapshot(stored, snapshot, spec.dimension, step.load),
    };
  }
  const outcome = sweepOutcome(spec, points);
  return {
    kind: 'finish',
    outcome: {
      status: 'succeeded',
      stopReason: outcome.reason,
      capacity: outcome.capacity,
      bracketPassed: outcome.bracket.passed,
      bracketFailed: outcome.bracket.failed,
      costPerMtokAtCapacity: outcome.costPerMillionOutputTokensUsdAtCapacity,
    },
  };
}

function parseSpec(value: unknown): SweepSpec {
  const parsed = sweepSpecSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidSnapshotError(`sweep spec: ${issue.path.join('.')}: ${issue.message}`);
}

function ended(
  status: 'aborted' | 'failed',
  stopReason: 'aborted' | 'endpoint_failed',
  run: SweepPointRun,
): SweepAction {
  return {
    kind: 'finish',
    outcome: {
      status,
      stopReason,
      error: `point ${run.index} (run ${run.runId}) ${run.status}${run.error ? `: ${run.error}` : ''}`,
      errorClass: run.errorClass ?? (status === 'aborted' ? 'stopped' : 'internal'),
    },
  };
}

/** A sweep that cannot go on for teapot's own reasons (a stored spec it cannot read, a point without figures). */
function unrunnable(reason: string): SweepAction {
  return {
    kind: 'finish',
    outcome: { status: 'failed', stopReason: null, error: reason, errorClass: 'internal' },
  };
}
