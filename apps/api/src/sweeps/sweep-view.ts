import { frontier, type SweepPoint } from '@teapot/capacity';
import type { RunErrorClass, SweepSpec } from '@teapot/contracts';
import type { StoredSweep, SweepPointRun, SweepWithPoints } from '@teapot/db';
import { isPlainObject } from '../common/validators';
import { LOAD_UNITS, type SweepDetailDto, type SweepDto } from './dto/sweep.dto';

/** A sweep row as Prisma or the SweepStore reads it (the same columns, camel-cased). */
export type SweepRow = Omit<StoredSweep, 'errorClass' | 'trigger'> & {
  errorClass: RunErrorClass | null;
  trigger: SweepDto['trigger'];
};

export function toSweepDto(row: SweepRow): SweepDto {
  // Stored by the API (or the scheduler) after sweepSpecSchema parsed it: defaults filled, preset expanded.
  const spec = row.spec as SweepSpec;
  return {
    id: row.id,
    endpointId: row.endpointId,
    profileId: row.profileId,
    configId: row.configId,
    deploymentId: row.deploymentId,
    trigger: row.trigger,
    status: row.status,
    spec,
    dimension: spec.dimension,
    unit: LOAD_UNITS[spec.dimension],
    slo: spec.slo ?? null,
    stopReason: row.stopReason,
    capacity: row.capacity,
    bracket: { passed: row.bracketPassed, failed: row.bracketFailed },
    costPerMillionOutputTokensUsdAtCapacity: row.costPerMtokAtCapacity,
    error: row.error,
    errorClass: row.errorClass,
    queuedAt: row.queuedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/** The sweep, its points in measuring order, and which of them make the frontier (@teapot/capacity's). */
export function toSweepDetail(sweep: SweepWithPoints): SweepDetailDto {
  const measured = sweep.points.flatMap((point) => {
    const figures = figuresOf(point.point);
    return figures === null ? [] : [{ index: point.index, figures }];
  });
  // frontier() answers positions in what it was given: the measured points, mapped back to sweep indexes.
  const frontierIndexes = frontier(measured.map((m) => m.figures)).map((at) => measured[at].index);
  const onFrontier = new Set(frontierIndexes);
  const figuresAt = new Map(measured.map((m) => [m.index, m.figures]));
  return {
    ...toSweepDto(sweep),
    points: sweep.points.map((point) => ({
      index: point.index,
      runId: point.runId,
      runStatus: point.status,
      offered: offeredOf(point),
      figures: figuresAt.get(point.index) ?? null,
      onFrontier: onFrontier.has(point.index),
      error: point.error,
      errorClass: point.errorClass,
      finishedAt: point.finishedAt,
    })),
    frontier: frontierIndexes,
  };
}

/** The load the point's run was asked for: its rate, or its streams in flight. */
function offeredOf(point: SweepPointRun): number | null {
  const load = point.load as Partial<{ kind: string; ratePerS: number; concurrency: number }> | null;
  const value = load?.kind === 'open' ? load.ratePerS : load?.kind === 'closed' ? load.concurrency : null;
  return typeof value === 'number' ? value : null;
}

/**
 * runs.sweep_point: the worker writes @teapot/capacity's pointFigures() there, in the run writer's
 * transaction. Anything else (a row from before the figures had this shape) shows as no figures.
 */
function figuresOf(stored: Record<string, unknown> | null): SweepPoint | null {
  const looksLikePoint =
    isPlainObject(stored) &&
    typeof stored.load === 'number' &&
    Array.isArray(stored.targets) &&
    isPlainObject(stored.saturation);
  return looksLikePoint ? (stored as unknown as SweepPoint) : null;
}
