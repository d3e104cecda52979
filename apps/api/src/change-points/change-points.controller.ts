import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { ChangePointList } from '@teapot/analysis';
import { AnalysisRoute } from '../common/routes';
import { ChangePointsService } from './change-points.service';
import { ChangePointListDto, ChangePointQueryDto } from './dto/change-point.dto';

@ApiTags('change-points')
@Controller('change-points')
export class ChangePointsController {
  constructor(private readonly changePoints: ChangePointsService) {}

  @Get()
  @AnalysisRoute({
    summary: 'Change points of the run series, as recomputed when runs arrive',
    description:
      'e.g. `GET /change-points?endpointId=...&metric=itl&statistic=p99&mode=robust`. One series per ' +
      "(endpoint, profile, metric, statistic): each run its own value. `otava` mode is Apache Otava's " +
      'E-Divisive + t-test (window 50, p 0.001); `robust` mode uses ranks and tells steps from drifts.',
    type: ChangePointListDto,
    badRequest: 'Names the parameter: unknown metric, reversed range...',
  })
  list(@Query() query: ChangePointQueryDto): Promise<ChangePointList> {
    return this.changePoints.list(query);
  }
}
