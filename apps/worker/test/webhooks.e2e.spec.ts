import { persistRunResult, recordEvent } from '@teapot/db';
import { syntheticRunResult } from '@teapot/db/testing';
import { AnalysisQueueProducer, RunQueueProducer } from '@teapot/jobs';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedManualRun,
  seedProfile,
  seedWebhookSubscription,
  startWebhookReceiver,
  waitFor,
  waitForRunToFinish,
  type WebhookReceiver,
} from '@teapot/testing';
import { verify } from '@teapot/webhooks';
import {
  WorkerProcess,
  createDeployment,
  createWorld,
  waitForVerdict,
  type WorkerWorld,
} from './support/harness';

// Worker processes as `npm start` runs them: one measuring (WORKER_QUEUES=runs, no webhook I/O),
// others delivering webhooks; killed with SIGKILL at the worst moments.
describe('webhooks across worker processes', () => {
  let world: WorkerWorld;
  let receiver: WebhookReceiver;
  let producer: RunQueueProducer;
  const workers: WorkerProcess[] = [];

  const spawnWorker = async (id: string, queues: string) => {
    const worker = new WorkerProcess(
      id,
      world.workerEnv({
        LOG_LEVEL: 'info',
        WORKER_QUEUES: queues,
        TEAPOT_WEBHOOK_URL_ALLOW: 'public,loopback',
        WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms',
        WEBHOOK_TIMEOUT_MS: '10000',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
      }),
    );
    workers.push(worker);
    await worker.waitForLog(`worker ${id} started`);
    return worker;
  };
  const deliveriesOf = (subscriptionId: string) =>
    world.db.prisma.webhookDelivery.findMany({
      where: { subscriptionId },
      include: { attemptRows: true, event: true },
    });

  beforeAll(async () => {
    world = await createWorld();
    receiver = await startWebhookReceiver();
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
    await closeInOrder(producer, receiver, world);
  });

  it('a run.failed recorded by a measuring worker SIGKILLed right after is delivered exactly once', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/failed`,
      eventTypes: ['run.failed'],
    });
    const endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const runId = await seedManualRun(world, await seedProfile(world, endpointId, { requests: 2 }));
    const measuring = await spawnWorker('measuring', 'runs');
    await producer.enqueueRun(runId);
    expect((await waitForRunToFinish(world, runId)).status).toBe('failed');
    await measuring.stop('SIGKILL');
    // Written with the run, not queued: the measuring process does no webhook I/O.
    const [written] = await deliveriesOf(sub.id);
    expect(written).toMatchObject({ status: 'pending', attempts: 0, queuedAt: null });
    expect(receiver.received).toHaveLength(0);

    // Two delivering processes sweep the same outbox at once.
    await Promise.all([spawnWorker('delivering-1', 'webhooks'), spawnWorker('delivering-2', 'webhooks')]);
    await waitFor('delivered', async () => (await deliveriesOf(sub.id))[0].status === 'succeeded');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const mine = receiver.received.filter((r) => r.path === '/failed');
    expect(mine).toHaveLength(1);
    const [delivery] = await deliveriesOf(sub.id);
    expect(verify(sub.secret, mine[0].headers, mine[0].body).id).toBe(delivery.messageId);
    expect(JSON.parse(mine[0].body)).toMatchObject({ type: 'run.failed', data: { runId, status: 'failed' } });
    expect(delivery.attempts).toBe(1);
    expect(delivery.attemptRows).toHaveLength(1);
  });

  it('a delivering worker SIGKILLed mid-attempt: another sends the message again under the same webhook-id', async () => {
    for (const worker of workers.splice(0)) await worker.stop('SIGKILL');
    const sub = await seedWebhookSubscription(world, { url: `${receiver.url}/killed`, eventTypes: ['ping'] });
    // The first request is held unanswered until its sender is killed; the resend gets 204.
    receiver.answer = (request) =>
      request.path === '/killed' && receiver.received.filter((r) => r.path === '/killed').length === 1
        ? 'hang'
        : { status: 204 };
    const doomed = await spawnWorker('doomed', 'webhooks');
    await world.db.prisma.$transaction((tx) =>
      recordEvent(tx, { type: 'ping', data: {}, subscriptionIds: [sub.id] }),
    );
    await waitFor('the first request arrived', async () =>
      receiver.received.some((r) => r.path === '/killed'),
    );
    await doomed.stop('SIGKILL');
    await spawnWorker('survivor', 'webhooks');
    await waitFor('delivered', async () => (await deliveriesOf(sub.id))[0]?.status === 'succeeded', 30_000);
    const mine = receiver.received.filter((r) => r.path === '/killed');
    expect(mine).toHaveLength(2);
    expect(new Set(mine.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const request of mine) verify(sub.secret, request.headers, request.body);
    const [delivery] = await deliveriesOf(sub.id);
    expect(delivery.attempts).toBe(1);
  });

  it('an analysis worker SIGKILLed after finding a regression: its deployment.regressed is delivered once', async () => {
    for (const worker of workers.splice(0)) await worker.stop('SIGKILL');
    const endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const profileId = await seedProfile(world, endpointId);
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/regressed`,
      eventTypes: ['deployment.regressed'],
      endpointId,
    });
    const measured = async (seed: number, gapScale: number, deploymentId?: string) => {
      const run = await world.db.prisma.run.create({
        data: {
          endpointId,
          profileId,
          deploymentId: deploymentId ?? null,
          profileSnapshot: {},
          trigger: deploymentId ? 'deployment' : 'schedule',
          status: 'running',
          startedAt: new Date(),
        },
      });
      await persistRunResult(
        world.db,
        run.id,
        syntheticRunResult({ requests: 24, tokensPerRequest: 48, seed, gapScale }),
      );
    };
    for (let i = 0; i < 3; i++) await measured(i + 1, 1);
    const deployment = await createDeployment(world, endpointId, profileId);
    for (let i = 0; i < 3; i++) await measured(i + 11, 2, deployment.id);

    // The analysis process finds the regression, commits it with its event, and dies before any delivery.
    const analysis = await spawnWorker('analysis-doomed', 'analysis');
    const producer = new AnalysisQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    try {
      await producer.enqueueVerification(deployment.id);
      await waitForVerdict(world, deployment.id, 50);
    } finally {
      await producer.close();
    }
    await analysis.stop('SIGKILL');
    expect(
      (await world.db.prisma.deployment.findUniqueOrThrow({ where: { id: deployment.id } })).verdict,
    ).toBe('regressed');
    const [pending] = await deliveriesOf(sub.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.received.filter((r) => r.path === '/regressed')).toHaveLength(0);

    await spawnWorker('delivering-after', 'webhooks');
    await waitFor('delivered', async () => (await deliveriesOf(sub.id))[0]?.status === 'succeeded');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const mine = receiver.received.filter((r) => r.path === '/regressed');
    expect(mine).toHaveLength(1);
    expect(verify(sub.secret, mine[0].headers, mine[0].body).id).toBe(pending.messageId);
    expect(JSON.parse(mine[0].body)).toMatchObject({
      type: 'deployment.regressed',
      data: { deployment: { id: deployment.id }, verdict: 'regressed' },
    });
    expect(await world.db.prisma.webhookEvent.count({ where: { type: 'deployment.regressed' } })).toBe(1);
  });

  it('a run that fails without measuring (invalid snapshot) announces run.failed too', async () => {
    const sub = await seedWebhookSubscription(world, {
      url: `${receiver.url}/unmeasured`,
      eventTypes: ['run.failed'],
    });
    const endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const run = await world.db.prisma.run.create({
      data: { endpointId, profileSnapshot: { workload: 'nonsense' }, trigger: 'manual' },
    });
    await spawnWorker('measuring-again', 'runs');
    await producer.enqueueRun(run.id);
    expect((await waitForRunToFinish(world, run.id)).status).toBe('failed');
    await waitFor('delivered', async () => (await deliveriesOf(sub.id))[0]?.status === 'succeeded');
    const [delivery] = await deliveriesOf(sub.id);
    expect(delivery.event.data).toMatchObject({ runId: run.id, status: 'failed', requests: null });
    expect(String((delivery.event.data as { error: string }).error)).not.toBe('');
  });
});
