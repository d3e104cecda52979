import { Module } from '@nestjs/common';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookSubscriptionsController } from './webhook-subscriptions.controller';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

@Module({
  controllers: [WebhookSubscriptionsController, WebhookDeliveriesController],
  providers: [WebhookSubscriptionsService, WebhookDeliveriesService],
})
export class WebhooksModule {}
