import { HttpCode, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiNotFoundResponse } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { GetRoute, IdParam, ListRoute, ResourceController } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import {
  DeliveryDto,
  EventDto,
  ListAttemptsDto,
  ListDeliveriesQueryDto,
  ListEventsQueryDto,
} from './dto/subscription.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

@ResourceController('webhooks', 'webhooks')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @ListRoute(EventDto, 'Newest first.', 'events')
  listEvents(@Query() query: ListEventsQueryDto) {
    return this.deliveries.listEvents(query);
  }

  @GetRoute(EventDto, 'events/:id')
  getEvent(@IdParam() id: string): Promise<EventDto> {
    return this.deliveries.getEvent(id);
  }

  @ListRoute(DeliveryDto, 'Newest first.', 'deliveries')
  listDeliveries(@Query() query: ListDeliveriesQueryDto) {
    return this.deliveries.listDeliveries(query);
  }

  @GetRoute(DeliveryDto, 'deliveries/:id')
  getDelivery(@IdParam() id: string): Promise<DeliveryDto> {
    return this.deliveries.getDelivery(id);
  }

  @GetRoute(ListAttemptsDto, 'deliveries/:id/attempts', 'Every attempt, first to last.')
  attempts(@IdParam() id: string): Promise<ListAttemptsDto> {
    return this.deliveries.attempts(id);
  }

  @Post('deliveries/:id/redeliver')
  @Access('write')
  @HttpCode(202)
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'Still pending, or the subscription is inactive.' })
  @ApiAcceptedResponse({
    type: DeliveryDto,
    description: 'Queued again as its next attempt, with the same webhook-id and body.',
  })
  redeliver(@IdParam() id: string): Promise<DeliveryDto> {
    return this.deliveries.redeliver(id);
  }
}
