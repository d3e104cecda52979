import { Injectable } from '@nestjs/common';
import { AnalysisInputError, compare, type Comparison, type ComparisonSide } from '@teapot/analysis';
import { timeParameter } from '../common/parse';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { ComparisonSideDto, CreateComparisonDto } from './dto/comparison.dto';

@Injectable()
export class ComparisonsService {
  constructor(private readonly prisma: PrismaService) {}

  async compare(body: CreateComparisonDto): Promise<Comparison> {
    try {
      return await compare(this.prisma.pool, {
        baseline: sideOf(body.baseline, 'baseline'),
        candidate: sideOf(body.candidate, 'candidate'),
        metrics: body.metrics,
        statistics: body.statistics,
        thresholds: body.thresholds,
        resample: body.resample,
        iterations: body.iterations,
        seed: body.seed,
      });
    } catch (error) {
      if (error instanceof AnalysisInputError) {
        throw new RequestValidationException([{ field: error.parameter, problem: error.problem }]);
      }
      throw error;
    }
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
