import { Injectable } from '@nestjs/common';
import { listChangePoints, type ChangePointList } from '@teapot/analysis';
import { ChangePointStore } from '@teapot/db';
import { PrismaService } from '../prisma/prisma.service';
import type { ChangePointQueryDto } from './dto/change-point.dto';

@Injectable()
export class ChangePointsService {
  private readonly store: ChangePointStore;

  constructor(prisma: PrismaService) {
    this.store = new ChangePointStore(prisma.pool);
  }

  list(query: ChangePointQueryDto): Promise<ChangePointList> {
    return listChangePoints(this.store, {
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
