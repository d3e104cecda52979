import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_PAYLOAD_FORMATS,
  type WebhookEventType,
  type WebhookPayloadFormat,
} from '@teapot/contracts';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { QueryBoolean } from '../../common/query';
import { IsAbsentOr, IsName, IsWholeNumber } from '../../common/validators';

export const MAX_ROTATION_OVERLAP_S = 7 * 24 * 3600;
const DAY_S = 24 * 3600;

export class CreateSubscriptionDto {
  @ApiProperty({
    example: 'https://hooks.example.com/teapot',
    maxLength: 2048,
    description:
      'Where deliveries are POSTed: http(s), no credentials. Loopback and private addresses only when ' +
      'TEAPOT_WEBHOOK_URL_ALLOW opens them; link-local and cloud metadata addresses never. Checked again ' +
      'on the resolved address at every connection.',
  })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty({
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    example: ['deployment.regressed', 'run.failed'],
    description: 'The event types to deliver.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `eventTypes must each be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  eventTypes!: WebhookEventType[];

  @ApiPropertyOptional({
    format: 'uuid',
    nullable: true,
    description: 'Only events about this endpoint; absent or null means every endpoint.',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsUUID('all', { message: 'endpointId must be a UUID' })
  endpointId?: string | null;

  @ApiPropertyOptional({ example: 'on-call channel', maxLength: 500 })
  @IsAbsentOr()
  @IsName(500)
  description?: string;

  @ApiPropertyOptional({
    enum: WEBHOOK_PAYLOAD_FORMATS,
    default: 'standard',
    description:
      '`standard`: the signed Standard Webhooks JSON body. `slack`: a Slack incoming-webhook message (Block Kit: ' +
      'verdict, endpoint, judged rows, dashboard links) for a URL from https://api.slack.com/messaging/webhooks; ' +
      'same outbox, retries and attempt records.',
  })
  @IsAbsentOr()
  @IsIn(WEBHOOK_PAYLOAD_FORMATS, { message: `format must be one of ${WEBHOOK_PAYLOAD_FORMATS.join(', ')}` })
  format?: WebhookPayloadFormat;

  @ApiPropertyOptional({ default: true, description: 'Inactive subscriptions get no deliveries.' })
  @IsAbsentOr()
  @IsBoolean()
  active?: boolean;
}

export class UpdateSubscriptionDto extends PartialType(CreateSubscriptionDto, {
  skipNullProperties: false,
}) {}

export class RotateSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ROTATION_OVERLAP_S,
    default: DAY_S,
    description: 'Seconds during which deliveries carry signatures of both the old and the new secret.',
  })
  @IsAbsentOr()
  @IsWholeNumber(0, MAX_ROTATION_OVERLAP_S)
  overlapS?: number;
}

export class ListSubscriptionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only active (true) or inactive (false) subscriptions.' })
  @QueryBoolean()
  active?: boolean;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'endpointId must be a UUID' })
  endpointId?: string;
}

export class SubscriptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://hooks.example.com/teapot' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) eventTypes!: string[];
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) endpointId!: string | null;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty() active!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'the receiver answered 410 Gone at 2026-12-03T10:00:00.000Z',
    description: 'Why teapot turned the subscription off by itself.',
  })
  disabledReason!: string | null;
  @ApiProperty({
    enum: WEBHOOK_PAYLOAD_FORMATS,
    description: 'What deliveries carry: `standard`, the signed JSON body; `slack`, a Block Kit message.',
  })
  format!: WebhookPayloadFormat;
  @ApiProperty({
    type: Date,
    nullable: true,
    description: 'Until when deliveries are also signed with the secret before the last rotation.',
  })
  previousSecretExpiresAt!: Date | null;
  @ApiProperty() createdAt!: Date;
  @ApiProperty() updatedAt!: Date;
}

export class SubscriptionWithSecretDto extends SubscriptionDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'The signing secret (Standard Webhooks: whsec_ + base64 of 32 random bytes). Shown only here: ' +
      'store it now; it is never returned again.',
  })
  secret!: string;
}

export class PingDto {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ format: 'uuid' }) deliveryId!: string;
}

export class ListEventsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES })
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_TYPES, { message: `type must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  type?: WebhookEventType;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'endpointId must be a UUID' })
  endpointId?: string;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'subscriptionId must be a UUID' })
  subscriptionId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'eventId must be a UUID' })
  eventId?: string;

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: (typeof DELIVERY_STATUSES)[number];
}

export class EventDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) type!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) endpointId!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { runId: '5b0c...', error: 'all 10 requests failed (connect_error x10)' },
    description: "The event's `data`, as delivered.",
  })
  data!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { run: '/runs/5b0c...' },
    description: 'API paths of the resources it is about (absolute URLs in the delivered body).',
  })
  links!: Record<string, string>;
  @ApiProperty() createdAt!: Date;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    example: 'msg_2b7c0e6a1f0d4c5e9a8b7c6d5e4f3a2b',
    description: 'The webhook-id header, the same on every attempt.',
  })
  messageId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) eventType!: string;
  @ApiProperty({ format: 'uuid' }) subscriptionId!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ description: 'Attempts made so far.' }) attempts!: number;
  @ApiProperty({ type: Date, nullable: true, description: 'When the next attempt is due (pending only).' })
  nextAttemptAt!: Date | null;
  @ApiProperty({ type: Number, nullable: true }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiProperty() createdAt!: Date;
  @ApiProperty({ type: Date, nullable: true }) finishedAt!: Date | null;
}

export class AttemptDto {
  @ApiProperty({ description: '1-based.' }) number!: number;
  @ApiProperty() startedAt!: Date;
  @ApiProperty({ example: 41.7 }) durationMs!: number;
  @ApiProperty({ type: Number, nullable: true, example: 503, description: 'Null when no response came.' })
  statusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'HTTP 503' }) error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KB of the response body.' })
  responseBody!: string | null;
  @ApiProperty({ type: Date, nullable: true, description: 'When the next attempt was scheduled for.' })
  retryAt!: Date | null;
}

export class ListAttemptsDto {
  @ApiProperty({ type: [AttemptDto] }) items!: AttemptDto[];
}
