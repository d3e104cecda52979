import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { SchedulerService } from './scheduler.service';

/** The `schedule` chore: a tick every SCHEDULER_TICK_MS queues the due runs of scheduled profiles. */
@Module({
  providers: [
    SchedulerService,
    // tick() never throws: it logs a failure once and reports it in TickReport.ok.
    scheduledChore({
      name: 'scheduler tick',
      service: SchedulerService,
      timing: (env) => ({ everyMs: env.SCHEDULER_TICK_MS }),
      run: (scheduler) => scheduler.tick(),
    }),
  ],
  exports: [SchedulerService],
})
export class SchedulerModule {}
