import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AnalysisRoute, GetRoute, IdParam } from '../common/routes';
import { ChangePointsService } from './change-points.service';
import { ChangePointDetailDto, ChangePointListDto, ChangePointQueryDto } from './dto/change-point.dto';

const ONE_CHANGE_POINT =
  'One change point (the id a `changepoint.*` webhook names), retracted or not, with its attribution.';

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
      'E-Divisive + t-test (window 50, p 0.001); `robust` mode uses ranks and tells steps from drifts. ' +
      'Each carries its attribution: the configuration versions and deployments around it, or "unexplained".',
    type: ChangePointListDto,
    badRequest: 'Names the parameter: unknown metric, reversed range...',
  })
  list(@Query() query: ChangePointQueryDto): Promise<ChangePointListDto> {
    return this.changePoints.list(query);
  }

  @GetRoute(ChangePointDetailDto, ':id', ONE_CHANGE_POINT)
  get(@IdParam() id: string): Promise<ChangePointDetailDto> {
    return this.changePoints.get(id);
  }
}
