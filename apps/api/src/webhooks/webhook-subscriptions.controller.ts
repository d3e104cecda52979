import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
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

const SubscriptionPage = PageOf(SubscriptionDto);

@ApiTags('webhooks')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('webhooks/subscriptions')
export class WebhookSubscriptionsController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @Post()
  @Access('write')
  @ApiNotFoundResponse({ type: ErrorBody, description: '`endpointId` names no endpoint.' })
  @ApiCreatedResponse({ type: SubscriptionWithSecretDto, description: 'The secret is shown this once.' })
  create(@Body() input: CreateSubscriptionDto): Promise<SubscriptionWithSecretDto> {
    return this.subscriptions.create(input);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: SubscriptionPage, description: 'Newest first. Secrets are never returned.' })
  list(@Query() query: ListSubscriptionsQueryDto) {
    return this.subscriptions.list(query);
  }

  @Get(':id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: SubscriptionDto })
  get(@Param('id', uuidParam('id')) id: string): Promise<SubscriptionDto> {
    return this.subscriptions.get(id);
  }

  @Patch(':id')
  @Access('write')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: SubscriptionDto, description: '`active: true` also clears `disabledReason`.' })
  update(
    @Param('id', uuidParam('id')) id: string,
    @Body() input: UpdateSubscriptionDto,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.update(id, input);
  }

  @Delete(':id')
  @Access('write')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with its deliveries and their attempts.' })
  @ApiNotFoundResponse({ type: ErrorBody })
  async remove(@Param('id', uuidParam('id')) id: string): Promise<void> {
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
  rotate(
    @Param('id', uuidParam('id')) id: string,
    @Body() input: RotateSecretDto,
  ): Promise<SubscriptionWithSecretDto> {
    return this.subscriptions.rotate(id, input.overlapS);
  }

  @Post(':id/ping')
  @Access('write')
  @HttpCode(202)
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'The subscription is inactive.' })
  @ApiAcceptedResponse({ type: PingDto, description: 'A `ping` event queued for this subscription only.' })
  ping(@Param('id', uuidParam('id')) id: string): Promise<PingDto> {
    return this.subscriptions.ping(id);
  }
}
