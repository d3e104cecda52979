import { Injectable } from '@nestjs/common';
import { compareRuns, type Comparison, type ComparisonSide } from '@teapot/analysis';
import { analysisStores, type AnalysisStores } from '@teapot/db';
import { timeParameter } from '../common/parse';
import { PrismaService } from '../prisma/prisma.service';
import type { ComparisonSideDto, CreateComparisonDto } from './dto/comparison.dto';

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
