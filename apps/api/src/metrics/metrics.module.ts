import { Module } from '@nestjs/common';
import { ApiMetrics } from './api-metrics';
import { LatestResults } from './latest-results';
import { MetricsController } from './metrics.controller';

/** `GET /metrics` (read key): the latest results as gauges, and the API's own operational metrics. */
@Module({
  controllers: [MetricsController],
  providers: [ApiMetrics, LatestResults],
  exports: [ApiMetrics],
})
export class MetricsModule {}
