import { Injectable } from '@nestjs/common';
import { listChangePoints, type ChangePointList } from '@teapot/analysis';
import { PrismaService } from '../prisma/prisma.service';
import type { ChangePointQueryDto } from './dto/change-point.dto';

@Injectable()
export class ChangePointsService {
  constructor(private readonly prisma: PrismaService) {}

  list(query: ChangePointQueryDto): Promise<ChangePointList> {
    return listChangePoints(this.prisma.pool, {
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
  }
}
