import { encryptSecret } from '@teapot/config';
import { JOB_NAMES, QUEUE_NAMES, type WebhookBody, type WebhookJobData } from '@teapot/contracts';
import { recordEvent, type DeliveryToQueue, type WebhookEventInput } from '@teapot/db';
import { createRedis, WebhookQueueProducer } from '@teapot/jobs';
import {
  closeInOrder,
  createTestWorld,
  seedEndpoint,
  seedWebhookSubscription,
  startWebhookReceiver,
  waitFor,
  type TestWorld,
  type WebhookReceiver,
} from '@teapot/testing';
import { generateSecret, verify, webhookUrlPolicy, webhookDispatcher } from '@teapot/webhooks';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookSweeper } from './webhook-sweeper';

// The delivery pipeline as the worker's webhooks module runs it: sweeper -> queue -> deliverer,
// against real Postgres, Redis and an HTTP receiver on loopback.
describe('webhook delivery', () => {
  let world: TestWorld;
  let receiver: WebhookReceiver;
  let connection: Redis;
  let workerConnection: Redis;
  let queue: Queue<WebhookJobData>;
  let worker: Worker<WebhookJobData>;
  let sweeper: WebhookSweeper;
  let endpointId: string;
  const policy = webhookUrlPolicy('public,loopback');
  const dispatcher = webhookDispatcher(policy);
  const errors: unknown[] = [];

  let producer: WebhookQueueProducer;
  let deliverer: WebhookDeliverer;
  const enqueue = (items: readonly DeliveryToQueue[]) => producer.enqueue(items);

  beforeAll(async () => {
    world = await createTestWorld();
    receiver = await startWebhookReceiver();
    connection = createRedis(world.redisUrl);
    workerConnection = createRedis(world.redisUrl);
    producer = new WebhookQueueProducer({ redis: connection, prefix: world.prefix });
    queue = producer.queue;
    deliverer = new WebhookDeliverer({
      db: world.db,
      secretKey: world.secretKey,
      policy,
      schedule: [300, 300, 300, 300, 300, 300, 300, 300],
      timeoutMs: 2_000,
      publicUrl: 'https://teapot.example.com/',
      dispatcher,
      enqueue: (next) => enqueue([next]),
    });
    worker = new Worker<WebhookJobData>(
      QUEUE_NAMES.webhooks,
      async (job) => deliverer.attempt(job.data.deliveryId, job.data.attempt),
      { connection: workerConnection, prefix: world.prefix, concurrency: 8 },
    );
    // As QueueWorkers calls WebhookProcessor.onJobFailed: only for a job that failed for good.
    worker.on('failed', (job, error) => {
      if (!job) return;
      void job.getState().then((state) => (state === 'failed' ? deliverer.handBack(job, error) : undefined));
    });
    sweeper = new WebhookSweeper({
      db: world.db,
      databaseUrl: world.databaseUrl,
      enqueue,
      onError: (error) => errors.push(error),
    });
    await sweeper.start();
    endpointId = await seedEndpoint(world, { name: 'llama-fp8', baseUrl: 'http://gpu:8000/v1' });
  });

  afterAll(async () => {
    await sweeper.stop();
    await closeInOrder(worker, producer, dispatcher, connection, workerConnection, receiver, world);
    expect(errors).toEqual([]);
  });

  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 204 });
  });

  const record = (event: WebhookEventInput) => world.db.prisma.$transaction((tx) => recordEvent(tx, event));
  const delivery = (id: string) =>
    world.db.prisma.webhookDelivery.findUniqueOrThrow({
      where: { id },
      include: { attemptRows: { orderBy: { number: 'asc' } }, subscription: true },
    });

  it('delivers a recorded event once, signed so that the exported verify accepts it, with a versioned body', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/a`,
      eventTypes: ['run.failed'],
    });
    const { eventId, deliveryIds } = await record({
      type: 'run.failed',
      endpointId,
      data: { runId: 'r-1', error: 'all 10 requests failed (connect_error x10)' },
      links: { run: '/runs/r-1' },
    });
    await waitFor(
      'the delivery succeeded',
      async () => (await delivery(deliveryIds[0])).status === 'succeeded',
    );
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const { id } = verify(sub.secret, got.headers, got.body);
    const row = await delivery(deliveryIds[0]);
    expect(id).toBe(row.messageId);
    expect(got.body).toBe(row.body);
    const body = JSON.parse(got.body) as WebhookBody;
    expect(body).toEqual({
      version: 1,
      id: eventId,
      type: 'run.failed',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      endpoint: {
        id: endpointId,
        name: 'llama-fp8',
        url: `https://teapot.example.com/endpoints/${endpointId}`,
      },
      data: { runId: 'r-1', error: 'all 10 requests failed (connect_error x10)' },
      links: {
        run: 'https://teapot.example.com/runs/r-1',
        event: `https://teapot.example.com/webhooks/events/${eventId}`,
        endpoint: `https://teapot.example.com/endpoints/${endpointId}`,
      },
    });
    expect(row.attempts).toBe(1);
    expect(row.attemptRows).toEqual([
      expect.objectContaining({ number: 1, statusCode: 204, error: null, retryAt: null, responseBody: '' }),
    ]);
    expect(row.attemptRows[0].durationMs).toBeGreaterThan(0);
  });

  it('keeps retrying a receiver that is down, and it gets the event under one webhook-id once back', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/b`,
      eventTypes: ['changepoint.detected'],
    });
    await receiver.stop();
    const { deliveryIds } = await record({
      type: 'changepoint.detected',
      endpointId,
      data: { metric: 'itl' },
    });
    await waitFor('three refused attempts', async () => (await delivery(deliveryIds[0])).attempts >= 3);
    const down = await delivery(deliveryIds[0]);
    expect(down.status).toBe('pending');
    expect(
      down.attemptRows.slice(0, 3).every((a) => a.statusCode === null && /ECONNREFUSED/.test(a.error!)),
    ).toBe(true);
    await receiver.start();
    receiver.answer = () => ({ status: 500, body: 'warming up' });
    await waitFor('a 500 recorded', async () => (await delivery(deliveryIds[0])).lastStatusCode === 500);
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await waitFor(
      'the delivery succeeded',
      async () => (await delivery(deliveryIds[0])).status === 'succeeded',
    );
    const row = await delivery(deliveryIds[0]);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids).toEqual(new Set([row.messageId]));
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    for (const got of receiver.received)
      expect(verify(sub.secret, got.headers, got.body).id).toBe(row.messageId);
    expect(row.attemptRows.map((a) => a.number)).toEqual(row.attemptRows.map((_, i) => i + 1));
    expect(row.attemptRows.at(-1)).toMatchObject({ statusCode: 200, responseBody: 'ok', retryAt: null });
    expect(row.attemptRows.find((a) => a.statusCode === 500)?.responseBody).toBe('warming up');
  });

  it("sends a slack subscription Slack's message, recording its 404 and 400 invalid_payload like any failed attempt", async () => {
    const slack = await seedWebhookSubscription(world, {
      url: `${receiver.url}/services/T000/B000/slack`,
      eventTypes: ['deployment.regressed'],
      format: 'slack',
    });
    // what Slack answers for a removed hook, then for blocks it refuses, then success
    const answers = [
      { status: 404, body: 'no_service' },
      { status: 400, body: 'invalid_payload' },
      { status: 200, body: 'ok' },
    ];
    receiver.answer = () => answers.shift() ?? { status: 200, body: 'ok' };
    const { deliveryIds } = await record({
      type: 'deployment.regressed',
      endpointId,
      data: {
        deployment: { id: 'd-1', label: 'moved to FP16 weights', version: null },
        verdict: 'regressed',
        threshold: 0.1,
        profiles: [
          {
            profileName: 'chat-short',
            verdict: 'regressed',
            decidedBy: ['tpot.p50'],
            metrics: [
              {
                metric: 'tpot',
                statistic: 'p50',
                unit: 'ms',
                baseline: 6.4,
                candidate: 12.1,
                delta: 0.89,
                relative: true,
                interval: [0.85, 0.93],
                verdict: 'regressed',
              },
            ],
          },
        ],
      },
      links: { deployment: '/deployments/d-1' },
    });
    await waitFor(
      'the delivery succeeded',
      async () => (await delivery(deliveryIds[0])).status === 'succeeded',
    );
    const row = await delivery(deliveryIds[0]);
    expect(row.attemptRows.map((a) => [a.statusCode, a.error, a.responseBody])).toEqual([
      [404, 'HTTP 404', 'no_service'],
      [400, 'HTTP 400', 'invalid_payload'],
      [200, null, 'ok'],
    ]);
    expect(row.attemptRows[0].retryAt).not.toBeNull();
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    const sent = JSON.parse(receiver.received[0].body) as { text: string; blocks: Array<{ type: string }> };
    expect(sent.text).toBe('🔴 Deployment regressed: moved to FP16 weights on llama-fp8');
    expect(sent.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'actions', 'context']);
    expect(receiver.received[0].body).toContain('*+89.0%* [+85.0%, +93.0%] regressed');
    // later tests record deployment events of their own
    await world.db.prisma.webhookSubscription.update({ where: { id: slack.id }, data: { active: false } });
  });

  it('disables the subscription on 410 Gone and cancels its pending deliveries; later events make none', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/gone`,
      eventTypes: ['deployment.regressed'],
    });
    // An earlier delivery of the subscription waiting for its next retry (queued for later).
    const earlier = await world.db.prisma.webhookEvent.create({
      data: { type: 'deployment.regressed', data: {} },
    });
    const waiting = await world.db.prisma.webhookDelivery.create({
      data: {
        messageId: `msg_waiting_${earlier.id}`,
        eventId: earlier.id,
        subscriptionId: sub.id,
        attempts: 2,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        queuedAt: new Date(),
      },
    });
    receiver.answer = () => ({ status: 410 });
    const first = await record({ type: 'deployment.regressed', endpointId, data: {} });
    await waitFor(
      'the delivery failed',
      async () => (await delivery(first.deliveryIds[0])).status === 'failed',
    );
    const row = await delivery(first.deliveryIds[0]);
    expect(row.attempts).toBe(1);
    expect(row.subscription.active).toBe(false);
    expect(row.subscription.disabledReason).toMatch(/^the receiver answered 410 Gone at /);
    expect(receiver.received).toHaveLength(1);
    const cancelled = await delivery(waiting.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', attempts: 2, nextAttemptAt: null });
    expect(cancelled.lastError).toMatch(/^the subscription was disabled: the receiver answered 410 Gone at /);
    expect(cancelled.finishedAt).not.toBeNull();
    // Its queued retry, should it still run, finds the delivery cancelled and sends nothing.
    await queue.add(
      JOB_NAMES.deliver,
      { deliveryId: waiting.id, attempt: 3 },
      { jobId: `late-${waiting.id}` },
    );
    await waitFor(
      'the late retry finished',
      async () => (await queue.getJob(`late-${waiting.id}`))?.finishedOn !== undefined,
    );
    expect(receiver.received).toHaveLength(1);
    const later = await record({ type: 'deployment.regressed', endpointId, data: {} });
    expect(later.deliveryIds).toEqual([]);
    expect(sub.id).toBe(row.subscriptionId);
  });

  it('waits what Retry-After says on 429, not the shorter schedule', async () => {
    await seedWebhookSubscription(world, {
      url: `${receiver.url}/busy`,
      eventTypes: ['deployment.verified'],
    });
    receiver.answer = () =>
      receiver.received.length === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 204 };
    const { deliveryIds } = await record({ type: 'deployment.verified', endpointId, data: {} });
    await waitFor(
      'the delivery succeeded',
      async () => (await delivery(deliveryIds[0])).status === 'succeeded',
      15_000,
    );
    const [first, second] = receiver.received;
    expect(second.at - first.at).toBeGreaterThanOrEqual(1_950);
    const row = await delivery(deliveryIds[0]);
    expect(row.attemptRows[0]).toMatchObject({ statusCode: 429, error: 'HTTP 429' });
    expect(
      row.attemptRows[0].retryAt!.getTime() - row.attemptRows[0].startedAt.getTime(),
    ).toBeGreaterThanOrEqual(2_000);
  });

  it('signs with both secrets while a rotation overlaps, and with the new one alone after', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/rotating`,
      eventTypes: ['ping'],
    });
    const next = generateSecret();
    await world.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: {
        secretEnc: new Uint8Array(encryptSecret(next, world.secretKey)),
        previousSecretEnc: new Uint8Array(encryptSecret(sub.secret, world.secretKey)),
        previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const overlap = await record({ type: 'ping', data: {}, subscriptionIds: [sub.id] });
    await waitFor('delivered', async () => (await delivery(overlap.deliveryIds[0])).status === 'succeeded');
    const [during] = receiver.received;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(next, during.headers, during.body).id).toBeTruthy();
    expect(verify(sub.secret, during.headers, during.body).id).toBeTruthy();

    await world.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1) },
    });
    const after = await record({ type: 'ping', data: {}, subscriptionIds: [sub.id] });
    await waitFor('delivered', async () => (await delivery(after.deliveryIds[0])).status === 'succeeded');
    const got = receiver.received[1];
    expect(verify(next, got.headers, got.body).id).toBeTruthy();
    expect(() => verify(sub.secret, got.headers, got.body)).toThrow(/No v1 signature/);
  });

  it('never sends an attempt twice when its job is added again', async () => {
    await seedWebhookSubscription(world, { url: `${receiver.url}/once`, eventTypes: ['run.failed'] });
    const { deliveryIds } = await record({ type: 'run.failed', endpointId: null, data: {} });
    // Every subscription to run.failed gets it (an earlier test's too): all must land before counting.
    await waitFor('delivered', async () => {
      for (const id of deliveryIds) if ((await delivery(id)).status !== 'succeeded') return false;
      return true;
    });
    const count = receiver.received.length;
    // A stale sweeper or a re-run job: a fresh job id for attempt 1 again.
    await queue.add(JOB_NAMES.deliver, { deliveryId: deliveryIds[0], attempt: 1 }, { jobId: 'again' });
    await waitFor(
      'the extra job finished',
      async () => (await queue.getJob('again'))?.finishedOn !== undefined,
    );
    expect(receiver.received).toHaveLength(count);
    expect((await delivery(deliveryIds[0])).attempts).toBe(1);
  });

  it('hands an attempt that could not be made (secret key changed) back to the sweeper instead of losing it', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/lost-key`,
      eventTypes: ['ping'],
    });
    await world.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: { secretEnc: new Uint8Array(encryptSecret(sub.secret, Buffer.alloc(32, 7))) },
    });
    const event = await world.db.prisma.webhookEvent.create({ data: { type: 'ping', data: {} } });
    // Queued already, so only the job below makes the attempt.
    const row = await world.db.prisma.webhookDelivery.create({
      data: { messageId: 'msg_lostkey', eventId: event.id, subscriptionId: sub.id, queuedAt: new Date() },
    });
    await queue.add(
      JOB_NAMES.deliver,
      { deliveryId: row.id, attempt: 1 },
      { jobId: 'lost-key', attempts: 1 },
    );
    await waitFor('handed back', async () => (await delivery(row.id)).queuedAt === null);
    const handed = await delivery(row.id);
    expect(await queue.getJob('lost-key')).toBeUndefined();
    expect(handed).toMatchObject({ status: 'pending', attempts: 0 });
    expect(handed.lastError).toMatch(/^attempt 1 could not be made: Secret could not be decrypted/);
    expect(handed.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(receiver.received).toHaveLength(0);
  });
});
