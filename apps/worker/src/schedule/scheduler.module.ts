import { Module } from '@nestjs/common';
import { SchedulerService } from './scheduler.service';

/** The `schedule` chore: ticks that queue the due runs of scheduled profiles. */
@Module({ providers: [SchedulerService], exports: [SchedulerService] })
export class SchedulerModule {}
