import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { RetentionService } from './retention.service';

/**
 * The `retention` chore: at each RETENTION_CRON time (UTC) and at boot (a slot missed while every
 * worker was down), runs the latest slot no worker has run yet; a failed pass is retried a minute later.
 */
@Module({
  providers: [
    RetentionService,
    scheduledChore({
      name: 'retention',
      service: RetentionService,
      timing: (env) => ({ cron: env.RETENTION_CRON, retryMs: 60_000 }),
      run: (retention) => retention.runDue(),
    }),
  ],
  exports: [RetentionService],
})
export class RetentionModule {}
