import { Client } from 'pg';
import { createDatabase, type Database } from './client';
import { dropWebhookHistory } from './retention';
import { createTestDatabase, type TestDatabase } from './testing';
import {
  deliveriesToQueue,
  eventContent,
  markDeliveriesQueued,
  recordEvent,
  WEBHOOK_OUTBOX_CHANNEL,
} from './webhook-outbox';

describe('the webhook outbox against a real database', () => {
  let testDb: TestDatabase;
  let db: Database;
  let endpointA: string;
  let endpointB: string;
  const subs: Record<string, string> = {};

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase(testDb.url, { max: 4 });
    const make = (name: string) =>
      db.prisma.endpoint.create({
        data: { name, baseUrl: 'http://gpu:8000/v1', apiKind: 'chat', model: 'm' },
      });
    endpointA = (await make('a')).id;
    endpointB = (await make('b')).id;
    const sub = async (
      name: string,
      data: { eventTypes: string[]; endpointId?: string; active?: boolean },
    ) => {
      const row = await db.prisma.webhookSubscription.create({
        data: { url: `https://example.com/${name}`, secretEnc: Buffer.from('x'), ...data },
      });
      subs[name] = row.id;
    };
    await sub('all', { eventTypes: ['run.failed', 'deployment.regressed'] });
    await sub('onlyA', { eventTypes: ['run.failed'], endpointId: endpointA });
    await sub('otherType', { eventTypes: ['changepoint.detected'] });
    await sub('inactive', { eventTypes: ['run.failed'], active: false });
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  const deliveriesOf = (eventId: string) =>
    db.prisma.webhookDelivery.findMany({ where: { eventId }, orderBy: { createdAt: 'asc' } });

  it('writes one pending delivery per active subscription whose types and endpoint filter match (Prisma transaction)', async () => {
    const recorded = await db.prisma.$transaction((tx) =>
      recordEvent(tx, {
        type: 'run.failed',
        endpointId: endpointA,
        data: { runId: 'r1', error: 'all 10 requests failed' },
        links: { run: '/runs/r1' },
      }),
    );
    const deliveries = await deliveriesOf(recorded.eventId);
    expect(new Set(deliveries.map((d) => d.subscriptionId))).toEqual(new Set([subs.all, subs.onlyA]));
    expect(new Set(deliveries.map((d) => d.id))).toEqual(new Set(recorded.deliveryIds));
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0, queuedAt: null, body: null });
      expect(delivery.messageId).toBe(`msg_${delivery.id.replace(/-/g, '')}`);
    }
    const event = await db.prisma.webhookEvent.findUniqueOrThrow({ where: { id: recorded.eventId } });
    expect(event).toMatchObject({
      type: 'run.failed',
      endpointId: endpointA,
      data: { runId: 'r1', error: 'all 10 requests failed' },
      links: { run: '/runs/r1' },
    });
  });

  it('leaves out subscriptions filtered to another endpoint (pg client inside BEGIN)', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const recorded = await recordEvent(client, { type: 'run.failed', endpointId: endpointB, data: {} });
      await client.query('COMMIT');
      const deliveries = await deliveriesOf(recorded.eventId);
      expect(deliveries.map((d) => d.subscriptionId)).toEqual([subs.all]);
    } finally {
      client.release();
    }
  });

  it('writes nothing when the caller rolls back, and the event alone when nobody subscribed', async () => {
    let eventId = '';
    await expect(
      db.prisma.$transaction(async (tx) => {
        eventId = (await recordEvent(tx, { type: 'deployment.regressed', endpointId: endpointA, data: {} }))
          .eventId;
        throw new Error('the cause failed to store');
      }),
    ).rejects.toThrow('the cause failed to store');
    expect(await db.prisma.webhookEvent.count({ where: { id: eventId } })).toBe(0);
    expect(await db.prisma.webhookDelivery.count({ where: { eventId } })).toBe(0);

    const lonely = await db.prisma.$transaction((tx) =>
      recordEvent(tx, { type: 'deployment.verified', endpointId: endpointA, data: {} }),
    );
    expect(lonely.deliveryIds).toEqual([]);
    expect(await db.prisma.webhookEvent.count({ where: { id: lonely.eventId } })).toBe(1);
  });

  it('sends a ping only to the named subscriptions, whatever their types, never to inactive ones', async () => {
    const recorded = await db.prisma.$transaction((tx) =>
      recordEvent(tx, { type: 'ping', data: {}, subscriptionIds: [subs.otherType, subs.inactive] }),
    );
    expect((await deliveriesOf(recorded.eventId)).map((d) => d.subscriptionId)).toEqual([subs.otherType]);
  });

  it("reads back an event's data and links as written, links {} when none were given", async () => {
    const withLinks = await db.prisma.$transaction((tx) =>
      recordEvent(tx, {
        type: 'run.failed',
        data: { runId: 'r3', n: 2 },
        links: { run: '/runs/r3' },
        subscriptionIds: [],
      }),
    );
    const without = await db.prisma.$transaction((tx) =>
      recordEvent(tx, { type: 'run.failed', data: { runId: 'r4' }, subscriptionIds: [] }),
    );
    const read = async (id: string) =>
      eventContent(await db.prisma.webhookEvent.findUniqueOrThrow({ where: { id } }));
    expect(await read(withLinks.eventId)).toEqual({
      data: { runId: 'r3', n: 2 },
      links: { run: '/runs/r3' },
    });
    expect(await read(without.eventId)).toEqual({ data: { runId: 'r4' }, links: {} });
  });

  it('refuses an unknown event type', async () => {
    await expect(
      db.prisma.$transaction((tx) => recordEvent(tx, { type: 'run.exploded' as 'ping', data: {} })),
    ).rejects.toThrow('"run.exploded" is not a webhook event type.');
  });

  it('notifies listeners on commit only', async () => {
    const listener = new Client({ connectionString: testDb.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${WEBHOOK_OUTBOX_CHANNEL}`);
    try {
      await db.prisma
        .$transaction(async (tx) => {
          await recordEvent(tx, { type: 'run.failed', data: {} });
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await db.prisma.$transaction((tx) => recordEvent(tx, { type: 'run.failed', data: {} }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([WEBHOOK_OUTBOX_CHANNEL]);
    } finally {
      await listener.end();
    }
  });

  it('hands the sweeper every delivery written but not queued, and not again once queued', async () => {
    const before = await deliveriesToQueue(db);
    const pending = await db.prisma.webhookDelivery.findMany({ where: { status: 'pending' } });
    expect(before.map((d) => d.deliveryId).sort()).toEqual(pending.map((d) => d.id).sort());
    expect(before.every((d) => d.attempt === 1)).toBe(true);

    const [first, ...rest] = before;
    // A stale claim (attempt 3 while none was recorded) is refused, so the sweeper sees it again.
    expect(await markDeliveriesQueued(db, [{ deliveryId: first.deliveryId, attempt: 3 }])).toBe(0);
    expect(await markDeliveriesQueued(db, rest)).toBe(rest.length);
    expect((await deliveriesToQueue(db)).map((d) => d.deliveryId)).toEqual([first.deliveryId]);

    // Queued long ago and still pending: its job was lost, so it is handed out again.
    const later = new Date(Date.now() + 11 * 60_000);
    expect((await deliveriesToQueue(db, { now: later })).length).toBe(before.length);
  });
  it('retention drops old events with their deliveries and attempts, never one with a delivery pending', async () => {
    const old = new Date('2020-01-01T00:00:00Z');
    const event = async (status: 'succeeded' | 'failed' | 'cancelled' | 'pending', attempts: number) => {
      const row = await db.prisma.webhookEvent.create({ data: { type: 'ping', data: {}, createdAt: old } });
      const delivery = await db.prisma.webhookDelivery.create({
        data: { messageId: `msg_${row.id}`, eventId: row.id, subscriptionId: subs.all, status, attempts },
      });
      for (let n = 1; n <= attempts; n++)
        await db.prisma.webhookAttempt.create({
          data: { deliveryId: delivery.id, number: n, startedAt: old, durationMs: 3, statusCode: 500 },
        });
      return row.id;
    };
    const done = [await event('succeeded', 1), await event('failed', 3), await event('cancelled', 0)];
    const retrying = await event('pending', 2);
    const before = await db.prisma.webhookEvent.count({ where: { createdAt: { gte: old } } });

    expect(
      await dropWebhookHistory(db, { olderThan: new Date('2021-01-01T00:00:00Z'), batchSize: 2 }),
    ).toEqual({
      events: 3,
      deliveries: 3,
      attempts: 4,
    });
    expect(await db.prisma.webhookEvent.count({ where: { id: { in: done } } })).toBe(0);
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: { in: done } } })).toBe(0);
    expect(await db.prisma.webhookAttempt.count({ where: { delivery: { eventId: { in: done } } } })).toBe(0);
    // The one a retry still waits on stays, attempts and all; newer events are untouched.
    expect(await db.prisma.webhookAttempt.count({ where: { delivery: { eventId: retrying } } })).toBe(2);
    expect(await db.prisma.webhookEvent.count({ where: { createdAt: { gte: old } } })).toBe(before - 3);
    expect(await dropWebhookHistory(db, { olderThan: new Date('2021-01-01T00:00:00Z') })).toEqual({
      events: 0,
      deliveries: 0,
      attempts: 0,
    });
  });
});
