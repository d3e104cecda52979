import { Module } from '@nestjs/common';
import { RunRequestsController } from './run-requests.controller';
import { RunRequestsService } from './run-requests.service';
import { RunServerMetricsController } from './run-server-metrics.controller';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

@Module({
  controllers: [RunsController, RunRequestsController, RunServerMetricsController],
  providers: [RunsService, RunRequestsService],
})
export class RunsModule {}
