import type { INestApplicationContext } from '@nestjs/common';
import { AnalysisQueueProducer, createRedis, verificationJobId } from '@teapot/jobs';
import { closeInOrder, seedEndpoint, seedProfile, seedWebhookSubscription, waitFor } from '@teapot/testing';
import type { Redis } from 'ioredis';
import { createWorkerApp } from '../src/worker-app';
import {
  createDeployment,
  createWorld,
  storeSyntheticRun,
  waitForVerdict,
  type WorkerWorld,
} from './support/harness';

// The `analysis` queue in a worker that runs only it: a deployment's verification stores the verdict
// and its webhook event once, in one transaction, however often its job runs.
describe('deployment verification on the analysis queue', () => {
  let world: WorkerWorld;
  let app: INestApplicationContext;
  let connection: Redis;
  let producer: AnalysisQueueProducer;
  let endpointId: string;
  let profileId: string;

  const measuredRun = (seed: number, gapScale: number, deploymentId?: string) =>
    storeSyntheticRun(world, { endpointId, profileId }, seed, gapScale, deploymentId);

  beforeAll(async () => {
    world = await createWorld();
    endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    profileId = await seedProfile(world, endpointId);
    connection = createRedis(world.redisUrl);
    producer = new AnalysisQueueProducer({ redis: connection, prefix: world.prefix });
    app = await createWorkerApp({
      env: world.workerEnv({ WORKER_QUEUES: 'analysis', DEPLOYMENT_POLL_MS: '100', WORKER_ID: 'analysis-1' }),
      logs: false,
    });
  }, 60_000);

  afterAll(() => closeInOrder(app, producer, connection, world));

  it('waits for the runs, stores regressed with one deployment.regressed event, and never twice', async () => {
    const subscription = await seedWebhookSubscription(world, {
      url: 'https://hooks.example.com/teapot',
      eventTypes: ['deployment.regressed', 'deployment.verified'],
      endpointId,
    });
    for (let i = 0; i < 3; i++) await measuredRun(i + 1, 1);
    const deployment = await createDeployment(world, endpointId, profileId);
    await measuredRun(11, 2, deployment.id);
    const unfinished = await world.db.prisma.run.create({
      data: {
        endpointId,
        profileId,
        deploymentId: deployment.id,
        profileSnapshot: {},
        trigger: 'deployment',
      },
    });
    await producer.enqueueVerification(deployment.id);
    // While a run is unfinished the job keeps delaying itself and stores nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(
      (await world.db.prisma.deployment.findUniqueOrThrow({ where: { id: deployment.id } })).verdict,
    ).toBeNull();
    const job = await producer.queue.getJob(verificationJobId(deployment.id));
    expect(['delayed', 'active', 'waiting']).toContain(await job?.getState());

    await world.db.prisma.run.delete({ where: { id: unfinished.id } });
    await measuredRun(12, 2, deployment.id);
    await measuredRun(13, 2, deployment.id);
    const stored = await waitForVerdict(world, deployment.id, 100);
    expect(stored.verdict).toBe('regressed');
    expect(stored.verifiedAt).not.toBeNull();
    const events = await world.db.prisma.webhookEvent.findMany({ include: { deliveries: true } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'deployment.regressed', endpointId });
    expect(events[0].deliveries.map((d) => d.subscriptionId)).toEqual([subscription.id]);
    const data = events[0].data as {
      deployment: { id: string };
      verdict: string;
      profiles: Array<{ metrics: unknown[]; explanations: string[] }>;
    };
    expect(data).toMatchObject({ deployment: { id: deployment.id }, verdict: 'regressed' });
    expect(data.profiles[0].metrics.length).toBeGreaterThan(0);
    // Every gap doubled: the per-token record's ITL P99 explains it, as a factor.
    expect(data.profiles[0].explanations).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ITL P99 (during|outside) prefills .* ms \(x2\.\d\)$/)]),
    );
    expect(events[0].links).toMatchObject({ deployment: `/deployments/${deployment.id}` });

    // A second job for the same deployment (a retry, or the sweep) changes nothing.
    await (await producer.queue.getJob(verificationJobId(deployment.id)))?.remove();
    await producer.enqueueVerification(deployment.id);
    await waitFor(
      'the second job',
      async () =>
        (await (await producer.queue.getJob(verificationJobId(deployment.id)))?.getState()) === 'completed',
      30_000,
      100,
    );
    expect(await world.db.prisma.webhookEvent.count()).toBe(1);
  }, 90_000);

  it('judges a sweep profile on its capacity at SLO: 41 -> 29 req/s is deployment.regressed, carried by the webhook', async () => {
    // Verification reads the deployment's sweeps; the profile's own sweep spec is the API's concern.
    const sweepProfileId = await seedProfile(world, endpointId);
    const sweep = (
      capacity: number,
      status: 'succeeded' | 'running',
      finishedAt: Date | null,
      deploymentId?: string,
    ) =>
      world.db.prisma.sweep.create({
        data: {
          endpointId,
          profileId: sweepProfileId,
          deploymentId,
          trigger: deploymentId ? 'deployment' : 'schedule',
          spec: { kind: 'capacity', dimension: 'rate' },
          profileSnapshot: {},
          status,
          stopReason: status === 'succeeded' ? 'converged' : null,
          capacity: status === 'succeeded' ? capacity : null,
          startedAt: new Date(),
          finishedAt,
        },
      });
    for (const capacity of [40.2, 41.5, 41.1])
      await sweep(capacity, 'succeeded', new Date(Date.now() - 60_000));
    const deployment = await world.db.prisma.deployment.update({
      where: { id: (await createDeployment(world, endpointId, sweepProfileId)).id },
      data: { label: 'moved to a smaller GPU' },
    });
    for (const capacity of [29.3, 28.8]) await sweep(capacity, 'succeeded', new Date(), deployment.id);
    const unfinished = await sweep(0, 'running', null, deployment.id);
    await producer.enqueueVerification(deployment.id);
    // A capacity search still running holds the verification back, as an unfinished run does.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(
      (await world.db.prisma.deployment.findUniqueOrThrow({ where: { id: deployment.id } })).verdict,
    ).toBeNull();
    await world.db.prisma.sweep.update({
      where: { id: unfinished.id },
      data: { status: 'succeeded', stopReason: 'converged', capacity: 29.1, finishedAt: new Date() },
    });
    const stored = await waitForVerdict(world, deployment.id, 100);
    expect(stored.verdict).toBe('regressed');
    const event = await world.db.prisma.webhookEvent.findFirstOrThrow({
      where: { type: 'deployment.regressed', data: { path: ['deployment', 'id'], equals: deployment.id } },
    });
    const [profile] = (event.data as { profiles: Array<Record<string, unknown>> }).profiles;
    expect(profile).toMatchObject({
      profileId: sweepProfileId,
      verdict: 'regressed',
      decidedBy: ['capacity.mean'],
      baselineSweeps: 3,
      candidateSweeps: 3,
    });
    const [row] = profile.metrics as Array<{
      metric: string;
      unit: string;
      baseline: number;
      candidate: number;
      delta: number;
      interval: number[];
    }>;
    expect(row).toMatchObject({ metric: 'capacity', unit: 'req/s', verdict: 'regressed' });
    const geo = (values: number[]) =>
      Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
    expect(row.baseline).toBeCloseTo(geo([40.2, 41.5, 41.1]), 9);
    expect(row.candidate).toBeCloseTo(geo([29.3, 28.8, 29.1]), 9);
    expect(row.delta).toBeCloseTo(-0.29, 2);
    expect(row.interval[1]).toBeLessThan(-0.1);
  }, 60_000);
});
