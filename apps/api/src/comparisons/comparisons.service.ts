import { Injectable } from '@nestjs/common';
import {
  compareRuns,
  compareSweeps,
  type Comparison,
  type ComparisonSide,
  type SweepComparison,
  type SweepSide,
} from '@teapot/analysis';
import { cancellableQueries, readStores, type ReadStores } from '@teapot/db';
import { timeParameter } from '../common/parse';
import { PrismaService } from '../prisma/prisma.service';
import type { ComparisonSideDto, CreateComparisonDto } from './dto/comparison.dto';
import type { CreateSweepComparisonDto, SweepSideDto } from './dto/sweep-comparison.dto';

@Injectable()
export class ComparisonsService {
  constructor(private readonly prisma: PrismaService) {}

  /** Each call's stores: on the analyses' own pool, every statement cancelled once its client is gone. */
  private storesFor(clientGone: AbortSignal): ReadStores {
    return readStores(cancellableQueries(this.prisma.analysisPool, clientGone));
  }

  compare(body: CreateComparisonDto, clientGone: AbortSignal): Promise<Comparison> {
    return compareRuns(this.storesFor(clientGone), {
      baseline: sideOf(body.baseline, 'baseline'),
      candidate: sideOf(body.candidate, 'candidate'),
      metrics: body.metrics,
      statistics: body.statistics,
      thresholds: body.thresholds,
      resample: body.resample,
      iterations: body.iterations,
      seed: body.seed,
    });
  }

  compareSweeps(body: CreateSweepComparisonDto, clientGone: AbortSignal): Promise<SweepComparison> {
    return compareSweeps(this.storesFor(clientGone).sweeps, {
      baseline: sweepSideOf(body.baseline, 'baseline'),
      candidate: sweepSideOf(body.candidate, 'candidate'),
      metrics: body.metrics,
      threshold: body.threshold,
      confidence: body.confidence,
    });
  }
}

function sweepSideOf(side: SweepSideDto, name: string): SweepSide {
  const { includeSaturated: _none, runIds: _sweeps, ...rest } = sideOf(side, name);
  return { ...rest, sweepIds: side.sweepIds };
}

function sideOf(side: ComparisonSideDto, name: string): ComparisonSide {
  return {
    runIds: side.runIds,
    endpointIds: side.endpointIds,
    profileIds: side.profileIds,
    triggers: side.triggers,
    config: side.config,
    includeSaturated: side.includeSaturated ?? false,
    from: side.from === undefined ? undefined : timeParameter(side.from, `${name}.from`),
    to: side.to === undefined ? undefined : timeParameter(side.to, `${name}.to`),
  };
}
