import { randomUUID } from 'node:crypto';
import { isWebhookEventType, type WebhookEventType } from '@teapot/contracts';
import type { ClientBase } from 'pg';
import type { Prisma } from './generated/prisma/client';
import { poolOf, type RunStore } from './run-store';

/** NOTIFY channel raised (on commit) when an event added deliveries; the sweeper LISTENs on it. */
export const WEBHOOK_OUTBOX_CHANNEL = 'teapot_webhook_outbox';

export interface WebhookEventInput {
  type: WebhookEventType;
  /** The endpoint the event is about: subscriptions filtered to another endpoint do not get it. */
  endpointId?: string | null;
  /** The event's own object, sent as the body's `data` (JSON, at most a few KB). */
  data: Record<string, unknown>;
  /** API paths of the resources it is about, e.g. `{ run: '/runs/<id>' }`; sent as absolute URLs. */
  links?: Record<string, string>;
  /** Deliver only to these subscriptions (a test ping) instead of every matching one. */
  subscriptionIds?: readonly string[];
}

export interface RecordedEvent {
  eventId: string;
  /** One per matching active subscription; empty when nobody subscribed. */
  deliveryIds: string[];
}

/** What an event row's jsonb columns hold, as recordEvent wrote them (`links` `{}` when none were given). */
export function eventContent(row: { data: unknown; links: unknown }): {
  data: Record<string, unknown>;
  links: Record<string, string>;
} {
  return { data: row.data as Record<string, unknown>, links: row.links as Record<string, string> };
}

/** The caller's open transaction: a Prisma interactive transaction or a `pg` client inside BEGIN. */
export type OutboxTransaction = Prisma.TransactionClient | ClientBase;

/**
 * The webhook outbox. Call it INSIDE the transaction that stores what caused the event (a failed
 * run, a deployment's verdict, a change point): it writes the event and one `pending` delivery per
 * active subscription whose event types include `type` and whose endpoint filter is empty or equal
 * to `endpointId`. Nothing is sent here and nothing touches Redis, so the event commits or rolls back
 * with its cause: a crash after the commit loses nothing, because the webhooks worker's sweeper
 * queues every delivery written but not yet queued (woken at once by a NOTIFY sent on commit, and
 * every few seconds regardless).
 *
 * ```ts
 * await prisma.$transaction(async (tx) => {
 *   await tx.deployment.update({ ... verdict: 'regressed' ... });
 *   await recordEvent(tx, { type: 'deployment.regressed', endpointId, data: { ... }, links: { deployment: `/deployments/${id}` } });
 * });
 * ```
 */
export async function recordEvent(tx: OutboxTransaction, event: WebhookEventInput): Promise<RecordedEvent> {
  if (!isWebhookEventType(event.type))
    throw new Error(`"${String(event.type)}" is not a webhook event type.`);
  const { query: sql, execute } = sqlOf(tx);
  const eventId = randomUUID();
  await execute(
    `INSERT INTO webhook_events (id, type, endpoint_id, data, links) VALUES ($1::uuid, $2, $3::uuid, $4::jsonb, $5::jsonb)`,
    [
      eventId,
      event.type,
      event.endpointId ?? null,
      JSON.stringify(event.data),
      JSON.stringify(event.links ?? {}),
    ],
  );
  const targeted = event.subscriptionIds !== undefined;
  const subscriptions = await sql(
    `SELECT id FROM webhook_subscriptions
      WHERE active
        AND (endpoint_id IS NULL OR endpoint_id = $2::uuid)
        AND (CASE WHEN $3 THEN id = ANY($4::uuid[]) ELSE $1 = ANY(event_types) END)
      ORDER BY created_at`,
    [event.type, event.endpointId ?? null, targeted, [...(event.subscriptionIds ?? [])]],
  );
  if (subscriptions.length === 0) return { eventId, deliveryIds: [] };
  const deliveryIds = subscriptions.map(() => randomUUID());
  await execute(
    `INSERT INTO webhook_deliveries (id, message_id, event_id, subscription_id)
     SELECT d, 'msg_' || replace(d::text, '-', ''), $1::uuid, s
       FROM unnest($2::uuid[], $3::uuid[]) AS t(d, s)`,
    [eventId, deliveryIds, subscriptions.map((row) => row.id as string)],
  );
  // Delivered to listeners only if and when the caller's transaction commits.
  await execute(`SELECT pg_notify('${WEBHOOK_OUTBOX_CHANNEL}', '')`, []);
  return { eventId, deliveryIds };
}

type Rows = Array<Record<string, unknown>>;
type Statement = (text: string, values: unknown[]) => Promise<unknown>;

function sqlOf(tx: OutboxTransaction): {
  query: (text: string, values: unknown[]) => Promise<Rows>;
  execute: Statement;
} {
  if ('query' in tx && typeof tx.query === 'function') {
    const client = tx as ClientBase;
    const query = async (text: string, values: unknown[]) => (await client.query(text, values)).rows as Rows;
    return { query, execute: query };
  }
  const prisma = tx as Prisma.TransactionClient;
  return {
    query: (text, values) => prisma.$queryRawUnsafe<Rows>(text, ...values),
    execute: (text, values) => prisma.$executeRawUnsafe(text, ...values),
  };
}

/** The next attempt of a pending delivery, for the sweeper to put on the `webhooks` queue. */
export interface DeliveryToQueue {
  deliveryId: string;
  /** 1-based number of the attempt to make. */
  attempt: number;
  /** When it is due (it may be in the past). */
  dueAt: Date;
}

export interface DeliveriesToQueueOptions {
  limit?: number;
  /** Also return a pending delivery this long past due even though it was queued (its job was lost). */
  overdueMs?: number;
  now?: Date;
}

/**
 * Pending deliveries whose next attempt has no job yet: written by `recordEvent` and not queued, or
 * a retry whose worker died between recording an attempt and queueing the next. Queueing one twice
 * is harmless: the job id is the delivery and attempt, and an attempt already recorded is skipped.
 */
export async function deliveriesToQueue(
  db: RunStore,
  options: DeliveriesToQueueOptions = {},
): Promise<DeliveryToQueue[]> {
  const now = options.now ?? new Date();
  const overdueBefore = new Date(now.getTime() - (options.overdueMs ?? 10 * 60_000));
  const { rows } = await poolOf(db).query<{ id: string; attempt: number; due_at: Date }>(
    `SELECT id, attempts + 1 AS attempt, COALESCE(next_attempt_at, created_at) AS due_at
       FROM webhook_deliveries
      WHERE status = 'pending' AND (queued_at IS NULL OR next_attempt_at < $2)
      ORDER BY next_attempt_at NULLS FIRST
      LIMIT $1`,
    [options.limit ?? 500, overdueBefore],
  );
  return rows.map((row) => ({ deliveryId: row.id, attempt: row.attempt, dueAt: row.due_at }));
}

/**
 * Marks deliveries as queued for the given attempt; a delivery that moved on meanwhile (its attempt
 * was recorded, or it finished) is left alone so the sweeper sees it again. Returns how many changed.
 */
export async function markDeliveriesQueued(
  db: RunStore,
  queued: ReadonlyArray<Pick<DeliveryToQueue, 'deliveryId' | 'attempt'>>,
): Promise<number> {
  if (queued.length === 0) return 0;
  const { rowCount } = await poolOf(db).query(
    `UPDATE webhook_deliveries AS d SET queued_at = now()
       FROM unnest($1::uuid[], $2::int[]) AS t(id, attempt)
      WHERE d.id = t.id AND d.attempts = t.attempt - 1 AND d.status = 'pending'`,
    [queued.map((q) => q.deliveryId), queued.map((q) => q.attempt)],
  );
  return rowCount ?? 0;
}
