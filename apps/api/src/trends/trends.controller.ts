import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AnalysisRoute } from '../common/routes';
import { TrendDto, TrendQueryDto } from './dto/trend.dto';
import { TrendsService } from './trends.service';

@ApiTags('trends')
@Controller('trends')
export class TrendsController {
  constructor(private readonly trends: TrendsService) {}

  @Get()
  @AnalysisRoute({
    summary: 'A metric over time, per bucket, merged from stored histograms',
    description:
      'e.g. `GET /trends?metric=itl&statistic=p99&bucket=day&from=2026-09-01T00:00:00Z&endpointId=...&groupBy=weightQuant`. ' +
      'A percentile is over every token (ITL) or request (TTFT, TPOT, E2E) of the bucket; rates are pooled. ' +
      '`deployments` lists the deployments that took effect within the range on the endpoints of the series, with the series each falls in.',
    type: TrendDto,
    badRequest: 'Names the parameter: unknown metric, reversed range, too many buckets...',
  })
  // Sent as serialized once for every caller that joined the same computation (TrendsService).
  @Header('content-type', 'application/json; charset=utf-8')
  get(@Query() query: TrendQueryDto): Promise<string> {
    return this.trends.trendJson(query);
  }
}
