import { Global, Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';
import { WorkerMetrics } from './worker-metrics';

/** This process's counters (every module records into WorkerMetrics) and their listener. */
@Global()
@Module({ providers: [WorkerMetrics, MetricsService], exports: [WorkerMetrics, MetricsService] })
export class MetricsModule {}
