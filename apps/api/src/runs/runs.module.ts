import { Module } from '@nestjs/common';
import { RunRequestsController } from './run-requests.controller';
import { RunRequestsService } from './run-requests.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

@Module({
  controllers: [RunsController, RunRequestsController],
  providers: [RunsService, RunRequestsService],
})
export class RunsModule {}
