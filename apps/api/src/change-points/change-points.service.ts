import { Injectable } from '@nestjs/common';
import { AnalysisInputError, listChangePoints, type ChangePointList } from '@teapot/analysis';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { ChangePointQueryDto } from './dto/change-point.dto';

@Injectable()
export class ChangePointsService {
  constructor(private readonly prisma: PrismaService) {}

  async list(query: ChangePointQueryDto): Promise<ChangePointList> {
    try {
      return await listChangePoints(this.prisma.pool, {
        endpointIds: query.endpointId,
        profileIds: query.profileId,
        metric: query.metric,
        statistic: query.statistic,
        mode: query.mode,
        kind: query.kind,
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
        limit: query.limit,
      });
    } catch (error) {
      if (error instanceof AnalysisInputError) {
        throw new RequestValidationException([{ field: error.parameter, problem: error.problem }]);
      }
      throw error;
    }
  }
}
