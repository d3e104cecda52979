import { Injectable } from '@nestjs/common';
import {
  compareRuns,
  compareSweeps,
  type Comparison,
  type ComparisonSide,
  type SweepComparison,
  type SweepSide,
} from '@teapot/analysis';
import { analysisStores, type AnalysisStores } from '@teapot/db';
import { timeParameter } from '../common/parse';
import { PrismaService } from '../prisma/prisma.service';
import type { ComparisonSideDto, CreateComparisonDto } from './dto/comparison.dto';
import type { CreateSweepComparisonDto, SweepSideDto } from './dto/sweep-comparison.dto';

@Injectable()
export class ComparisonsService {
  private readonly stores: AnalysisStores;

  constructor(prisma: PrismaService) {
    this.stores = analysisStores(prisma.pool);
  }

  compare(body: CreateComparisonDto): Promise<Comparison> {
    return compareRuns(this.stores, {
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

  compareSweeps(body: CreateSweepComparisonDto): Promise<SweepComparison> {
    return compareSweeps(this.stores.sweeps, {
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
