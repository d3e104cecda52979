import { Body, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import {
  CreateRoute,
  DeleteRoute,
  GetRoute,
  IdParam,
  ListRoute,
  ResourceController,
  UpdateRoute,
} from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import {
  CreateSubscriptionDto,
  ListSubscriptionsQueryDto,
  PingDto,
  RotateSecretDto,
  SubscriptionDto,
  SubscriptionWithSecretDto,
  UpdateSubscriptionDto,
} from './dto/subscription.dto';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

@ResourceController('webhooks', 'webhooks/subscriptions')
export class WebhookSubscriptionsController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @CreateRoute(SubscriptionWithSecretDto, 'The secret is shown this once.')
  @ApiNotFoundResponse({ type: ErrorBody, description: '`endpointId` names no endpoint.' })
  create(@Body() input: CreateSubscriptionDto): Promise<SubscriptionWithSecretDto> {
    return this.subscriptions.create(input);
  }

  @ListRoute(SubscriptionDto, 'Newest first. Secrets are never returned.')
  list(@Query() query: ListSubscriptionsQueryDto) {
    return this.subscriptions.list(query);
  }

  @GetRoute(SubscriptionDto)
  get(@IdParam() id: string): Promise<SubscriptionDto> {
    return this.subscriptions.get(id);
  }

  @UpdateRoute(SubscriptionDto, '`active: true` also clears `disabledReason`.')
  update(@IdParam() id: string, @Body() input: UpdateSubscriptionDto): Promise<SubscriptionDto> {
    return this.subscriptions.update(id, input);
  }

  @DeleteRoute('Deleted, with its deliveries and their attempts.')
  async remove(@IdParam() id: string): Promise<void> {
    await this.subscriptions.remove(id);
  }

  @Post(':id/rotate-secret')
  @Access('write')
  @HttpCode(200)
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({
    type: SubscriptionWithSecretDto,
    description: 'The new secret, shown this once; the old one also signs until `previousSecretExpiresAt`.',
  })
  rotate(@IdParam() id: string, @Body() input: RotateSecretDto): Promise<SubscriptionWithSecretDto> {
    return this.subscriptions.rotate(id, input.overlapS);
  }

  @Post(':id/ping')
  @Access('write')
  @HttpCode(202)
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'The subscription is inactive.' })
  @ApiAcceptedResponse({ type: PingDto, description: 'A `ping` event queued for this subscription only.' })
  ping(@IdParam() id: string): Promise<PingDto> {
    return this.subscriptions.ping(id);
  }
}
