import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Trend } from '@teapot/analysis';
import { Access } from '../auth/access.decorator';
import { ErrorBody } from '../errors/error-body';
import { TrendDto, TrendQueryDto } from './dto/trend.dto';
import { TrendsService } from './trends.service';

@ApiTags('trends')
@Controller('trends')
export class TrendsController {
  constructor(private readonly trends: TrendsService) {}

  @Get()
  @Access('read')
  @ApiOperation({
    summary: 'A metric over time, per bucket, merged from stored histograms',
    description:
      'e.g. `GET /trends?metric=itl&statistic=p99&bucket=day&from=2026-09-01T00:00:00Z&endpointId=...&groupBy=weightQuant`. ' +
      'A percentile is over every token (ITL) or request (TTFT, TPOT, E2E) of the bucket; rates are pooled.',
  })
  @ApiOkResponse({ type: TrendDto })
  @ApiBadRequestResponse({
    type: ErrorBody,
    description: 'Names the parameter: unknown metric, reversed range, too many buckets...',
  })
  get(@Query() query: TrendQueryDto): Promise<Trend> {
    return this.trends.trend(query);
  }
}
