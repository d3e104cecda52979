import { Module } from '@nestjs/common';
import { periodicChore } from '../chores/periodic-chore';
import { RetentionService } from './retention.service';

/** The `retention` chore: every minute, runs the RETENTION_CRON slot no worker has run yet. */
@Module({
  providers: [
    RetentionService,
    periodicChore({
      name: 'retention',
      service: RetentionService,
      everyMs: () => 60_000,
      run: (retention) => retention.runDue(),
    }),
  ],
  exports: [RetentionService],
})
export class RetentionModule {}
