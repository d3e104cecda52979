import { decryptSecret } from '@teapot/config';
import { isWebhookEventType } from '@teapot/contracts';
import { eventContent, markDeliveriesQueued, type Database } from '@teapot/db';
import {
  attemptVerdict,
  renderDeliveryBody,
  sendWebhook,
  type AttemptResult,
  type AttemptVerdict,
  type UrlPolicy,
} from '@teapot/webhooks';
import type { Dispatcher } from 'undici';

export interface WebhookDelivererOptions {
  db: Pick<Database, 'prisma' | 'pool'>;
  secretKey: Buffer;
  policy: UrlPolicy;
  /** Delays before attempts 2, 3, ... (ms). */
  schedule: readonly number[];
  timeoutMs: number;
  publicUrl: string;
  dispatcher?: Dispatcher;
  /** Puts attempt `attempt` of a delivery on the queue, due at `dueAt` (idempotent per attempt). */
  enqueue(next: { deliveryId: string; attempt: number; dueAt: Date }): Promise<void>;
  now?: () => number;
  random?: () => number;
}

export type AttemptReport =
  | { kind: 'skipped'; reason: string }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'attempted'; verdict: AttemptVerdict; result: AttemptResult };

/** When an attempt that could not be made (not the receiver's fault) is tried again. */
export const HAND_BACK_DELAY_MS = 5 * 60_000;

/**
 * Makes one attempt of one delivery and records it. The job says which attempt it is; an attempt
 * already recorded (a re-added or re-run job) is skipped, and recording is conditional on the
 * attempt count, so two workers never record the same attempt. After the record commits, a retry is
 * queued; if this process dies first, the sweeper queues it.
 */
export class WebhookDeliverer {
  constructor(private readonly options: WebhookDelivererOptions) {}

  async attempt(deliveryId: string, attempt: number): Promise<AttemptReport> {
    const { prisma } = this.options.db;
    const delivery = await prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: {
        subscription: true,
        event: { include: { endpoint: { select: { id: true, name: true } } } },
      },
    });
    if (!delivery) return { kind: 'skipped', reason: 'the delivery no longer exists' };
    if (delivery.status !== 'pending')
      return { kind: 'skipped', reason: `the delivery is ${delivery.status}` };
    if (delivery.attempts !== attempt - 1) {
      return { kind: 'skipped', reason: `attempt ${attempt} is stale (${delivery.attempts} recorded)` };
    }
    const { subscription, event } = delivery;
    if (!subscription.active) {
      const reason = `the subscription is inactive${subscription.disabledReason ? ` (${subscription.disabledReason})` : ''}`;
      await prisma.webhookDelivery.updateMany({
        where: { id: deliveryId, attempts: attempt - 1, status: 'pending' },
        data: {
          status: 'cancelled',
          lastError: reason,
          nextAttemptAt: null,
          finishedAt: new Date(this.now()),
        },
      });
      return { kind: 'cancelled', reason };
    }
    if (!isWebhookEventType(event.type))
      throw new Error(`Event ${event.id} has an unknown type ${event.type}.`);

    let body = delivery.body;
    if (body === null) {
      body = renderDeliveryBody(
        {
          id: event.id,
          type: event.type,
          createdAt: event.createdAt,
          ...eventContent(event),
          endpoint: event.endpoint,
        },
        this.options.publicUrl,
        subscription.format,
      );
      // Stored before the first send: every retry and redelivery sends these exact bytes.
      await prisma.webhookDelivery.updateMany({ where: { id: deliveryId, body: null }, data: { body } });
      body = (await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).body!;
    }

    const result = await sendWebhook(
      { url: subscription.url, secrets: this.secretsOf(subscription), messageId: delivery.messageId, body },
      {
        policy: this.options.policy,
        timeoutMs: this.options.timeoutMs,
        dispatcher: this.options.dispatcher,
        nowMs: this.now(),
      },
    );
    const verdict = attemptVerdict(attempt, result, this.options.schedule, this.options.random);
    const recorded = await this.record(deliveryId, subscription.id, attempt, result, verdict);
    if (!recorded) return { kind: 'skipped', reason: `attempt ${attempt} was recorded by another worker` };
    if (verdict.kind === 'retry') {
      const next = { deliveryId, attempt: attempt + 1, dueAt: new Date(this.now() + verdict.delayMs) };
      await this.options.enqueue(next);
      await markDeliveriesQueued(this.options.db, [next]);
    }
    return { kind: 'attempted', verdict, result };
  }

  /**
   * A job that failed for good (BullMQ's own retries spent: the database or the secret key failed,
   * not the receiver). Its id would make re-adding it a no-op for days, so the job is removed and
   * the attempt handed back to the sweeper, due again after `HAND_BACK_DELAY_MS`.
   */
  async handBack(
    job: { remove(): Promise<void>; data: { deliveryId: string; attempt: number } },
    error: Error,
  ): Promise<void> {
    await job.remove();
    await this.options.db.prisma.webhookDelivery.updateMany({
      where: { id: job.data.deliveryId, attempts: job.data.attempt - 1, status: 'pending' },
      data: {
        queuedAt: null,
        nextAttemptAt: new Date(this.now() + HAND_BACK_DELAY_MS),
        lastError: `attempt ${job.data.attempt} could not be made: ${error.message}`,
      },
    });
  }

  /** The attempt row and the delivery's new state in one transaction; false when already recorded. */
  private async record(
    deliveryId: string,
    subscriptionId: string,
    attempt: number,
    result: AttemptResult,
    verdict: AttemptVerdict,
  ): Promise<boolean> {
    const finishedAt = new Date(result.startedAt.getTime() + result.durationMs);
    const retryAt = verdict.kind === 'retry' ? new Date(this.now() + verdict.delayMs) : null;
    const status =
      verdict.kind === 'succeeded' ? 'succeeded' : verdict.kind === 'retry' ? 'pending' : 'failed';
    const goneReason = `the receiver answered 410 Gone at ${finishedAt.toISOString()}`;
    const lastError =
      verdict.kind === 'gone'
        ? `${goneReason}; the subscription is disabled`
        : verdict.kind === 'given_up'
          ? `${result.error ?? 'failed'}; gave up after ${attempt} attempts`
          : result.error;
    return this.options.db.prisma.$transaction(async (tx) => {
      const updated = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, attempts: attempt - 1, status: 'pending' },
        data: {
          attempts: attempt,
          status,
          lastStatusCode: result.statusCode,
          lastError,
          nextAttemptAt: retryAt,
          queuedAt: null,
          finishedAt: status === 'pending' ? null : finishedAt,
        },
      });
      if (updated.count !== 1) return false;
      await tx.webhookAttempt.create({
        data: {
          deliveryId,
          number: attempt,
          startedAt: result.startedAt,
          durationMs: result.durationMs,
          statusCode: result.statusCode,
          error: result.error,
          responseBody: result.responseBody,
          retryAt,
        },
      });
      if (verdict.kind === 'gone') {
        await tx.webhookSubscription.update({
          where: { id: subscriptionId },
          data: { active: false, disabledReason: goneReason },
        });
        await tx.webhookDelivery.updateMany({
          where: { subscriptionId, status: 'pending' },
          data: {
            status: 'cancelled',
            lastError: `the subscription was disabled: ${goneReason}`,
            nextAttemptAt: null,
            finishedAt,
          },
        });
      }
      return true;
    });
  }

  /** The current secret, and the previous one while its rotation overlap lasts. */
  private secretsOf(subscription: {
    secretEnc: Uint8Array;
    previousSecretEnc: Uint8Array | null;
    previousSecretExpiresAt: Date | null;
  }): string[] {
    const secrets = [decryptSecret(subscription.secretEnc, this.options.secretKey)];
    if (
      subscription.previousSecretEnc &&
      subscription.previousSecretExpiresAt &&
      subscription.previousSecretExpiresAt.getTime() > this.now()
    ) {
      secrets.push(decryptSecret(subscription.previousSecretEnc, this.options.secretKey));
    }
    return secrets;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
