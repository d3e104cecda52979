import { ConflictException, Injectable } from '@nestjs/common';
import {
  eventContent,
  type Prisma,
  WEBHOOK_OUTBOX_CHANNEL,
  type WebhookDelivery,
  type WebhookEvent,
} from '@teapot/db';
import { keysetPage, type Page } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';
import type {
  AttemptDto,
  DeliveryDto,
  EventDto,
  ListDeliveriesQueryDto,
  ListEventsQueryDto,
} from './dto/subscription.dto';
import { orNotFound } from '../common/not-found';

type DeliveryRow = WebhookDelivery & { event: { type: string } };
const WITH_TYPE = { event: { select: { type: true } } } as const;

/** Reads of events, deliveries and attempts, and redelivery (through the outbox's sweeper). */
@Injectable()
export class WebhookDeliveriesService {
  constructor(private readonly prisma: PrismaService) {}

  listEvents(query: ListEventsQueryDto): Promise<Page<EventDto>> {
    const where: Prisma.WebhookEventWhereInput = {
      ...(query.type ? { type: query.type } : {}),
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
    };
    return keysetPage('createdAt', query, where, (args) => this.prisma.webhookEvent.findMany(args), eventDto);
  }

  async getEvent(id: string): Promise<EventDto> {
    const row = orNotFound(
      await this.prisma.webhookEvent.findUnique({ where: { id } }),
      `Webhook event ${id} does not exist.`,
    );
    return eventDto(row);
  }

  listDeliveries(query: ListDeliveriesQueryDto): Promise<Page<DeliveryDto>> {
    const where: Prisma.WebhookDeliveryWhereInput = {
      ...(query.subscriptionId ? { subscriptionId: query.subscriptionId } : {}),
      ...(query.eventId ? { eventId: query.eventId } : {}),
      ...(query.status ? { status: query.status } : {}),
    };
    return keysetPage(
      'createdAt',
      query,
      where,
      (args) => this.prisma.webhookDelivery.findMany({ ...args, include: WITH_TYPE }),
      deliveryDto,
    );
  }

  async getDelivery(id: string): Promise<DeliveryDto> {
    return deliveryDto(await this.findDelivery(id));
  }

  async attempts(id: string): Promise<{ items: AttemptDto[] }> {
    await this.findDelivery(id);
    const rows = await this.prisma.webhookAttempt.findMany({
      where: { deliveryId: id },
      orderBy: { number: 'asc' },
    });
    return {
      items: rows.map(({ deliveryId: _deliveryId, ...attempt }) => attempt),
    };
  }

  /**
   * Sends a finished delivery again as its next attempt, with the same webhook-id and body (a
   * receiver that already processed it may drop it as a duplicate: that is the point of the id).
   */
  async redeliver(id: string): Promise<DeliveryDto> {
    const delivery = await this.findDelivery(id);
    if (delivery.status === 'pending') {
      throw new ConflictException(`Delivery ${id} is still pending; its next attempt is already due.`);
    }
    const subscription = await this.prisma.webhookSubscription.findUniqueOrThrow({
      where: { id: delivery.subscriptionId },
    });
    if (!subscription.active) {
      throw new ConflictException(
        `Subscription ${subscription.id} is inactive; turn it on first (PATCH /webhooks/subscriptions/${subscription.id} {"active": true}).`,
      );
    }
    const updated = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookDelivery.updateMany({
        where: { id, status: delivery.status, attempts: delivery.attempts },
        data: { status: 'pending', nextAttemptAt: new Date(), queuedAt: null, finishedAt: null },
      });
      if (count !== 1) throw new ConflictException(`Delivery ${id} changed meanwhile; try again.`);
      await tx.$executeRawUnsafe(`SELECT pg_notify('${WEBHOOK_OUTBOX_CHANNEL}', '')`);
      return tx.webhookDelivery.findUniqueOrThrow({ where: { id }, include: WITH_TYPE });
    });
    return deliveryDto(updated);
  }

  private async findDelivery(id: string): Promise<DeliveryRow> {
    return orNotFound(
      await this.prisma.webhookDelivery.findUnique({ where: { id }, include: WITH_TYPE }),
      `Webhook delivery ${id} does not exist.`,
    );
  }
}

function eventDto(row: WebhookEvent): EventDto {
  return {
    id: row.id,
    type: row.type,
    endpointId: row.endpointId,
    ...eventContent(row),
    createdAt: row.createdAt,
  };
}

function deliveryDto(row: DeliveryRow): DeliveryDto {
  return {
    id: row.id,
    messageId: row.messageId,
    eventId: row.eventId,
    eventType: row.event.type,
    subscriptionId: row.subscriptionId,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
  };
}
