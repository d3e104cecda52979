import {
  gpuCountOf,
  nextSweepStep,
  pointFigures,
  pointRequestsOf,
  type SweepPoint,
  sweepOutcome,
} from '@teapot/capacity';
import type { SweepSpec } from '@teapot/contracts';
import { type Database, type Prisma, SweepStore } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';

/** p50 TPOT must stay at or under 15 ms: the synthetic gaps average 5.5 ms times a point's gap scale. */
export const SEEDED_SLO_LIMIT_MS = 15;

/**
 * Two capacity searches of one configuration, older first: token gaps stretch with the streams in
 * flight (batching), faster in the older one, so it holds the SLO at fewer streams.
 */
const SWEEPS = [
  { daysAgo: 2, gapScale: (load: number) => 1.3 + 0.7 * (load - 1) },
  { daysAgo: 0, gapScale: (load: number) => 1 + 0.4 * (load - 1) },
];

export interface SeededSweep {
  id: string;
  /** The point runs, in measuring order. */
  runIds: string[];
  capacity: number | null;
}

/**
 * Finished capacity searches stored as the worker stores them: the loads @teapot/capacity's search
 * picks, each point a run written by the real run writer with its figures from pointFigures, the
 * outcome from sweepOutcome. Point runs are synthetic (more requests at higher load, so tokens/s per
 * GPU grows as per user falls).
 */
export async function seedSweeps(
  store: Database,
  target: { endpointId: string; profileId: string },
): Promise<SeededSweep[]> {
  const config = await store.prisma.servingConfig.findFirstOrThrow({
    where: { endpointId: target.endpointId },
    orderBy: { version: 'desc' },
  });
  const spec: SweepSpec = {
    kind: 'capacity',
    dimension: 'concurrency',
    slo: { targets: [{ metric: 'tpot', percentile: 50, limitMs: SEEDED_SLO_LIMIT_MS }] },
    lowest: 1,
    highest: 16,
    tolerance: 0.05,
    maxPoints: 8,
  };
  const seeded: SeededSweep[] = [];
  for (const [s, plan] of SWEEPS.entries()) {
    const startedAt = new Date(Date.now() - plan.daysAgo * 86_400_000 - 3_600_000);
    const sweep = await store.prisma.sweep.create({
      data: {
        endpointId: target.endpointId,
        profileId: target.profileId,
        configId: config.id,
        trigger: 'schedule',
        // As the API stores a parsed spec: plain JSON.
        spec: spec as unknown as Prisma.InputJsonObject,
        profileSnapshot: {},
        status: 'running',
        queuedAt: startedAt,
        startedAt,
      },
    });
    const points: SweepPoint[] = [];
    const runIds: string[] = [];
    // The points the search itself asks for, as the worker's sweep advancer measures them.
    for (
      let step = nextSweepStep(spec, points);
      step.kind === 'measure';
      step = nextSweepStep(spec, points)
    ) {
      const { load } = step;
      const index = points.length;
      const result = syntheticRunResult({
        requests: Math.round(8 * load),
        tokensPerRequest: 24,
        seed: 500 + 10 * s + index,
        gapScale: plan.gapScale(load),
      });
      const figures = pointFigures(
        {
          dimension: 'concurrency',
          load,
          summary: result.summary,
          requests: pointRequestsOf(result.requests, spec.slo),
        },
        spec.slo,
        { gpus: gpuCountOf(config), usdPerGpuHour: config.usdPerGpuHour },
      );
      points.push(figures);
      runIds.push(
        await storeMeasuredRun(
          store,
          {
            endpointId: target.endpointId,
            configId: config.id,
            profileId: target.profileId,
            startedAt: new Date(startedAt.getTime() + index * 60_000),
            profileSnapshot: { load: { kind: 'closed', concurrency: load } },
            sweep: { id: sweep.id, index },
          },
          result,
          { sweepPoint: figures },
        ),
      );
    }
    const {
      reason,
      capacity,
      bracket,
      costPerMillionOutputTokensUsdAtCapacity: cost,
    } = sweepOutcome(spec, points);
    // The store's own finish, as the worker's last step calls it.
    await new SweepStore(store).finish(sweep.id, {
      status: 'succeeded',
      stopReason: reason,
      capacity,
      bracketPassed: bracket.passed,
      bracketFailed: bracket.failed,
      costPerMtokAtCapacity: cost,
    });
    seeded.push({ id: sweep.id, runIds, capacity });
  }
  return seeded;
}
