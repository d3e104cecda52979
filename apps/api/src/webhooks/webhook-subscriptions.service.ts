import { ConflictException, Inject, Injectable } from '@nestjs/common';
import { type ApiEnv, encryptSecret } from '@teapot/config';
import { type Prisma, recordEvent, type WebhookSubscription } from '@teapot/db';
import { checkUrl, generateSecret } from '@teapot/webhooks';
import { keysetPage, type Page } from '../common/pagination';
import { API_ENV } from '../env/env.module';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type {
  CreateSubscriptionDto,
  ListSubscriptionsQueryDto,
  PingDto,
  SubscriptionDto,
  SubscriptionWithSecretDto,
  UpdateSubscriptionDto,
} from './dto/subscription.dto';
import { orNotFound } from '../common/not-found';
import { pick } from '../common/pick';

const DEFAULT_OVERLAP_S = 24 * 3600;

@Injectable()
export class WebhookSubscriptionsService {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(API_ENV) private readonly env: ApiEnv,
  ) {}

  async create(input: CreateSubscriptionDto): Promise<SubscriptionWithSecretDto> {
    this.checkUrl(input.url);
    await this.checkEndpoint(input.endpointId);
    const secret = generateSecret();
    const row = await this.prisma.webhookSubscription.create({
      data: {
        url: input.url,
        eventTypes: input.eventTypes,
        endpointId: input.endpointId ?? null,
        description: input.description ?? null,
        format: input.format ?? 'standard',
        active: input.active ?? true,
        secretEnc: this.seal(secret),
      },
    });
    return { ...toDto(row), secret };
  }

  list(query: ListSubscriptionsQueryDto): Promise<Page<SubscriptionDto>> {
    const where: Prisma.WebhookSubscriptionWhereInput = {
      ...(query.active === undefined ? {} : { active: query.active }),
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
    };
    return keysetPage(
      'createdAt',
      query,
      where,
      (args) => this.prisma.webhookSubscription.findMany(args),
      toDto,
    );
  }

  async get(id: string): Promise<SubscriptionDto> {
    return toDto(await this.find(id));
  }

  async update(id: string, input: UpdateSubscriptionDto): Promise<SubscriptionDto> {
    await this.find(id);
    if (input.url !== undefined) this.checkUrl(input.url);
    await this.checkEndpoint(input.endpointId);
    const row = await this.prisma.webhookSubscription.update({
      where: { id },
      data: {
        ...(input.url === undefined ? {} : { url: input.url }),
        ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
        ...(input.endpointId === undefined ? {} : { endpointId: input.endpointId }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.format === undefined ? {} : { format: input.format }),
        // Turning it back on clears why teapot turned it off (e.g. a 410 Gone).
        ...(input.active === undefined ? {} : { active: input.active, disabledReason: null }),
      },
    });
    return toDto(row);
  }

  async remove(id: string): Promise<void> {
    await this.find(id);
    await this.prisma.webhookSubscription.delete({ where: { id } });
  }

  /** A new secret; the old one keeps signing for `overlapS` seconds so receivers can switch over. */
  async rotate(id: string, overlapS = DEFAULT_OVERLAP_S): Promise<SubscriptionWithSecretDto> {
    const current = await this.find(id);
    const secret = generateSecret();
    const row = await this.prisma.webhookSubscription.update({
      where: { id },
      data: {
        secretEnc: this.seal(secret),
        previousSecretEnc: overlapS > 0 ? current.secretEnc : null,
        previousSecretExpiresAt: overlapS > 0 ? new Date(Date.now() + overlapS * 1000) : null,
      },
    });
    return { ...toDto(row), secret };
  }

  /** A `ping` event delivered to this subscription only, through the same outbox as every event. */
  async ping(id: string): Promise<PingDto> {
    const subscription = await this.find(id);
    if (!subscription.active) {
      throw new ConflictException(
        `Subscription ${id} is inactive; turn it on first (PATCH /webhooks/subscriptions/${id} {"active": true}).`,
      );
    }
    const recorded = await this.prisma.$transaction((tx) =>
      recordEvent(tx, {
        type: 'ping',
        data: { subscriptionId: id, message: 'A test delivery from teapot.' },
        links: { subscription: `/webhooks/subscriptions/${id}` },
        subscriptionIds: [id],
      }),
    );
    // The subscription was deactivated or deleted between the check and the write.
    if (recorded.deliveryIds.length === 0)
      throw new ConflictException(`Subscription ${id} is no longer active.`);
    return { eventId: recorded.eventId, deliveryId: recorded.deliveryIds[0] };
  }

  private async find(id: string): Promise<WebhookSubscription> {
    return orNotFound(
      await this.prisma.webhookSubscription.findUnique({ where: { id } }),
      `Webhook subscription ${id} does not exist.`,
    );
  }

  private checkUrl(url: string): void {
    try {
      checkUrl(url, this.env.TEAPOT_WEBHOOK_URL_ALLOW);
    } catch (refusal) {
      throw new RequestValidationException([{ field: 'url', problem: (refusal as Error).message }]);
    }
  }

  private async checkEndpoint(endpointId: string | null | undefined): Promise<void> {
    if (!endpointId) return;
    const found = await this.prisma.endpoint.count({ where: { id: endpointId } });
    if (found === 0)
      throw new MissingReferenceException([{ field: 'endpointId', problem: 'names no endpoint' }]);
  }

  private seal(secret: string): Uint8Array<ArrayBuffer> {
    return new Uint8Array(encryptSecret(secret, this.env.TEAPOT_SECRET_KEY));
  }
}

// prettier-ignore
const SUBSCRIPTION_FIELDS = [
  'id', 'url', 'eventTypes', 'endpointId', 'description', 'format', 'active', 'disabledReason',
  'createdAt', 'updatedAt',
] as const;

function toDto(row: WebhookSubscription): SubscriptionDto {
  return {
    ...pick(row, SUBSCRIPTION_FIELDS),
    previousSecretExpiresAt:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > Date.now()
        ? row.previousSecretExpiresAt
        : null,
  };
}
