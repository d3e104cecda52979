import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { type Prisma, WEBHOOK_OUTBOX_CHANNEL, type WebhookDelivery, type WebhookEvent } from '@teapot/db';
import { afterCursor, type Page, toPage } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';
import type {
  AttemptDto,
  DeliveryDto,
  EventDto,
  ListDeliveriesQueryDto,
  ListEventsQueryDto,
} from './dto/subscription.dto';

type DeliveryRow = WebhookDelivery & { event: { type: string } };
const WITH_TYPE = { event: { select: { type: true } } } as const;

/** Reads of events, deliveries and attempts, and redelivery (through the outbox's sweeper). */
@Injectable()
export class WebhookDeliveriesService {
  constructor(private readonly prisma: PrismaService) {}

  async listEvents(query: ListEventsQueryDto): Promise<Page<EventDto>> {
    const where: Prisma.WebhookEventWhereInput = {
      ...(query.type ? { type: query.type } : {}),
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
      ...afterCursor('createdAt', query.cursor),
    };
    const rows = await this.prisma.webhookEvent.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
    });
    return toPage(rows, query.limit, (row) => row.createdAt, eventDto);
  }

  async getEvent(id: string): Promise<EventDto> {
    const row = await this.prisma.webhookEvent.findUnique({ where: { id } });
    if (!row) throw new NotFoundException(`Webhook event ${id} does not exist.`);
    return eventDto(row);
  }

  async listDeliveries(query: ListDeliveriesQueryDto): Promise<Page<DeliveryDto>> {
    const where: Prisma.WebhookDeliveryWhereInput = {
      ...(query.subscriptionId ? { subscriptionId: query.subscriptionId } : {}),
      ...(query.eventId ? { eventId: query.eventId } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...afterCursor('createdAt', query.cursor),
    };
    const rows = await this.prisma.webhookDelivery.findMany({
      where,
      include: WITH_TYPE,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
    });
    return toPage(rows, query.limit, (row) => row.createdAt, deliveryDto);
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
    const row = await this.prisma.webhookDelivery.findUnique({ where: { id }, include: WITH_TYPE });
    if (!row) throw new NotFoundException(`Webhook delivery ${id} does not exist.`);
    return row;
  }
}

function eventDto(row: WebhookEvent): EventDto {
  return {
    id: row.id,
    type: row.type,
    endpointId: row.endpointId,
    data: row.data as Record<string, unknown>,
    links: row.links as Record<string, string>,
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
