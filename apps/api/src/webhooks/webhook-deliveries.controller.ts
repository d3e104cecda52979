import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
import { ErrorBody } from '../errors/error-body';
import {
  DeliveryDto,
  EventDto,
  ListAttemptsDto,
  ListDeliveriesQueryDto,
  ListEventsQueryDto,
} from './dto/subscription.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

const EventPage = PageOf(EventDto);
const DeliveryPage = PageOf(DeliveryDto);

@ApiTags('webhooks')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('webhooks')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get('events')
  @Access('read')
  @ApiOkResponse({ type: EventPage, description: 'Newest first.' })
  listEvents(@Query() query: ListEventsQueryDto) {
    return this.deliveries.listEvents(query);
  }

  @Get('events/:id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: EventDto })
  getEvent(@Param('id', uuidParam('id')) id: string): Promise<EventDto> {
    return this.deliveries.getEvent(id);
  }

  @Get('deliveries')
  @Access('read')
  @ApiOkResponse({ type: DeliveryPage, description: 'Newest first.' })
  listDeliveries(@Query() query: ListDeliveriesQueryDto) {
    return this.deliveries.listDeliveries(query);
  }

  @Get('deliveries/:id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: DeliveryDto })
  getDelivery(@Param('id', uuidParam('id')) id: string): Promise<DeliveryDto> {
    return this.deliveries.getDelivery(id);
  }

  @Get('deliveries/:id/attempts')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: ListAttemptsDto, description: 'Every attempt, first to last.' })
  attempts(@Param('id', uuidParam('id')) id: string): Promise<ListAttemptsDto> {
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
  redeliver(@Param('id', uuidParam('id')) id: string): Promise<DeliveryDto> {
    return this.deliveries.redeliver(id);
  }
}
