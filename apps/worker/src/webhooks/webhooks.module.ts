import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { WebhookSweeperService } from './webhook-sweeper.service';
import { WebhookProcessor } from './webhooks.processor';

/** The `webhooks` queue: delivery attempts (WebhookProcessor) and the outbox sweeper. */
@Module({
  providers: [
    WebhookProcessor,
    WebhookSweeperService,
    scheduledChore({
      name: 'webhook sweep',
      service: WebhookSweeperService,
      timing: (env) => ({ everyMs: env.WEBHOOK_SWEEP_INTERVAL_MS }),
      // The sweeper's start() sweeps at boot, once it listens.
      atBoot: false,
      run: (service) => service.sweeper.poll(),
    }),
  ],
  exports: [WebhookProcessor, WebhookSweeperService],
})
export class WebhooksModule {}
