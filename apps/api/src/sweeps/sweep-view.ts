import type { RunErrorClass, SweepSpec } from '@teapot/contracts';
import type { StoredSweep, SweepPointRun, SweepWithPoints } from '@teapot/db';
import { isPlainObject } from '../common/validators';
import {
  LOAD_UNITS,
  type SloTargetResultDto,
  type SweepDetailDto,
  type SweepDto,
  type SweepPointDto,
  type SweepPointFiguresDto,
} from './dto/sweep.dto';
import { paretoFrontier } from './frontier';

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
    costPerMtokAtCapacity: row.costPerMtokAtCapacity,
    error: row.error,
    errorClass: row.errorClass,
    queuedAt: row.queuedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/** The sweep, its points in measuring order, and which of them make the frontier. */
export function toSweepDetail(sweep: SweepWithPoints): SweepDetailDto {
  const points = sweep.points.map((point) => ({ point, figures: figuresOf(point.point) }));
  const frontier = paretoFrontier(
    points.flatMap(({ point, figures }) =>
      figures?.outputTokensPerSPerUser != null && figures.outputTokensPerSPerGpu != null
        ? [
            {
              index: point.index,
              perUser: figures.outputTokensPerSPerUser,
              perGpu: figures.outputTokensPerSPerGpu,
            },
          ]
        : [],
    ),
  );
  const onFrontier = new Set(frontier);
  return {
    ...toSweepDto(sweep),
    points: points.map(({ point, figures }) => toPointDto(point, figures, onFrontier.has(point.index))),
    frontier,
  };
}

function toPointDto(
  point: SweepPointRun,
  figures: SweepPointFiguresDto | null,
  onFrontier: boolean,
): SweepPointDto {
  return {
    index: point.index,
    runId: point.runId,
    runStatus: point.status,
    offered: offeredOf(point),
    figures,
    onFrontier,
    error: point.error,
    errorClass: point.errorClass,
    finishedAt: point.finishedAt,
  };
}

/** The load the point's run was asked for: its rate, or its streams in flight. */
function offeredOf(point: SweepPointRun): number | null {
  const load = point.load as Partial<{ kind: string; ratePerS: number; concurrency: number }> | null;
  if (load?.kind === 'open') return numberOrNull(load.ratePerS);
  if (load?.kind === 'closed') return numberOrNull(load.concurrency);
  return null;
}

/**
 * runs.sweep_point as the API shows it. The worker writes it (@teapot/capacity's SweepPoint); each
 * figure is read by name and type, null when absent, so a point stored by an older worker still reads.
 */
export function figuresOf(stored: Record<string, unknown> | null): SweepPointFiguresDto | null {
  if (stored === null || !isPlainObject(stored)) return null;
  return {
    achievedRps: numberOrNull(stored.achievedRps),
    targets: Array.isArray(stored.targets) ? stored.targets.filter(isPlainObject).map(targetOf) : [],
    meetsSlo: booleanOrNull(stored.meetsSlo),
    goodShare: numberOrNull(stored.goodShare),
    overSaturated: booleanOrNull(stored.overSaturated),
    outputTokensPerSPerUser: numberOrNull(stored.outputTokensPerSPerUser),
    outputTokensPerSPerGpu: numberOrNull(stored.outputTokensPerSPerGpu),
    costPerMtok: numberOrNull(stored.costPerMtok),
  };
}

function targetOf(target: Record<string, unknown>): SloTargetResultDto {
  return {
    metric: target.metric as SloTargetResultDto['metric'],
    percentile: target.percentile as SloTargetResultDto['percentile'],
    limitMs: numberOrNull(target.limitMs),
    valueMs: numberOrNull(target.valueMs),
    met: booleanOrNull(target.met),
  };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function booleanOrNull(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}
