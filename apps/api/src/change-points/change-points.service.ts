import { Injectable } from '@nestjs/common';
import { listChangePoints, withAttribution } from '@teapot/analysis';
import { ChangePointStore } from '@teapot/db';
import { orNotFound } from '../common/not-found';
import { PrismaService } from '../prisma/prisma.service';
import type { ChangePointDetailDto, ChangePointListDto, ChangePointQueryDto } from './dto/change-point.dto';

@Injectable()
export class ChangePointsService {
  private readonly store: ChangePointStore;

  constructor(private readonly prisma: PrismaService) {
    this.store = new ChangePointStore(prisma.pool);
  }

  /** A page of change points, each attributed (one more statement for the whole page). */
  async list(query: ChangePointQueryDto): Promise<ChangePointListDto> {
    const list = await listChangePoints(this.store, {
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
    return { ...list, changePoints: await withAttribution(this.prisma.pool, list.changePoints) };
  }

  async get(id: string): Promise<ChangePointDetailDto> {
    const stored = orNotFound(await this.store.byId(id), `No change point ${id}.`);
    const { announcedMagnitude: _announced, ...changePoint } = stored;
    const [attributed] = await withAttribution(this.prisma.pool, [changePoint]);
    return attributed;
  }
}
