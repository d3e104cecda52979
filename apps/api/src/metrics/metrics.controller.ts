import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { ApiMetrics } from './api-metrics';
import { LatestResults } from './latest-results';

@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: ApiMetrics,
    private readonly latest: LatestResults,
  ) {}

  @Get()
  @Access('read')
  @ApiOperation({
    summary:
      'Prometheus metrics: the latest results per endpoint, profile and configuration, and the API itself',
    description:
      'Prometheus text exposition. `teapot_latest_*` gauges hold the latest measured run of every ' +
      '(endpoint, profile, serving-configuration version), labelled `endpoint`, `endpoint_id`, `profile`, ' +
      '`profile_id`, `config_version` (ITL, TPOT and TTFT in seconds with `statistic` p50 or p99, output ' +
      'tokens/s, error ratio, the run start time, client saturation); `teapot_latest_deployment_*` the ' +
      'latest deployment of every endpoint (effective time, verdict); `teapot_runs_skipped_last_day` counts ' +
      'per endpoint and profile the runs of the last 24 h that were skipped (never measured; GET /runs says ' +
      'why); read at most every 5 s. Besides them, the request ' +
      "duration histogram and prom-client's process metrics. Scrape it with a read key " +
      '(`authorization: {credentials_file: ...}` in the scrape config).',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text format 0.0.4.', schema: { type: 'string' } })
  async scrape(@Res({ passthrough: true }) response: Response): Promise<string> {
    await this.latest.refresh();
    response.setHeader('content-type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}
