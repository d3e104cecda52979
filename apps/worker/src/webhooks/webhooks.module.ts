import { Module } from '@nestjs/common';
import { WebhookSweeperService } from './webhook-sweeper.service';
import { WebhookProcessor } from './webhooks.processor';

/** The `webhooks` queue: delivery attempts (WebhookProcessor) and the outbox sweeper. */
@Module({
  providers: [WebhookProcessor, WebhookSweeperService],
  exports: [WebhookProcessor, WebhookSweeperService],
})
export class WebhooksModule {}
