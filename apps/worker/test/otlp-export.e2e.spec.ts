import { REQUEST_LATENCY_BUCKETS_S, TOKEN_LATENCY_BUCKETS_S } from '@teapot/contracts';
import { readRunRequests } from '@teapot/db';
import { AnalysisQueueProducer, RunQueueProducer } from '@teapot/jobs';
import { requestMetrics } from '@teapot/measure';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { closeInOrder, freePort, REDIS_URL, seedEndpoint, seedProfile, waitFor } from '@teapot/testing';
import {
  createDeployment,
  createWorld,
  runOnce,
  storeSyntheticRun,
  WorkerProcess,
  type WorkerWorld,
} from './support/harness';
import { OtlpReceiver, type ReceivedPoint } from './support/otlp-receiver';

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

// Workers run in their own OS process here: the SDK's exporters load node:http with import(), which
// jest's module sandbox refuses.
let world: WorkerWorld;
let sim: RunningSimulator;
let runs: RunQueueProducer;

beforeAll(async () => {
  world = await createWorld();
  sim = await startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0, seed: 5 });
  runs = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
});

afterAll(() => closeInOrder(runs, sim, world));

/** A worker process exporting to the collector at `url`, started. */
async function exportingWorker(id: string, url: string, env: Record<string, string> = {}) {
  const worker = new WorkerProcess(
    id,
    world.workerEnv({ WORKER_QUEUES: 'runs', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: url, ...env }),
  );
  await worker.waitForLog(`worker ${id} started`);
  return worker;
}

const simulated = () => ({ baseUrl: sim.baseUrl, model: sim.deployment.model.name });

describe('OTLP export to a collector that answers', () => {
  let receiver: OtlpReceiver;
  let worker: WorkerProcess;
  let metricsPort: number;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    metricsPort = await freePort();
    worker = await exportingWorker('otlp-on', receiver.url, {
      WORKER_QUEUES: 'runs,analysis',
      DEPLOYMENT_POLL_MS: '100',
      WORKER_METRICS_PORT: String(metricsPort),
    });
  }, 60_000);

  afterAll(async () => {
    await worker.stop();
    await receiver.close();
  });

  it("sends a measured run's figures under GenAI names, in seconds, equal to the stored run", async () => {
    const run = await runOnce(world, runs, simulated(), 8);
    expect(run.status).toBe('succeeded');
    const event = await waitFor('the run event', async () =>
      receiver.logs.find((log) => log.attributes['teapot.run.id'] === run.id),
    );
    const ofRun = (name: string): ReceivedPoint | undefined =>
      receiver.latest(name)?.points.find((p) => p.attributes['teapot.profile.id'] === run.profileId);
    await waitFor('the figures', async () => ofRun('teapot.run.inter_token_latency'));

    // What the stored run says, request by request, in seconds.
    const requests = (await readRunRequests(world.db, run.id))
      .filter((record) => !record.warmup && record.outcome === 'ok')
      .map(requestMetrics);
    expect(requests).toHaveLength(8);
    const expected: Record<string, [number[], readonly number[]]> = {
      'gen_ai.server.time_to_first_token': [requests.map((r) => r.ttftUs! / 1e6), REQUEST_LATENCY_BUCKETS_S],
      'gen_ai.server.time_per_output_token': [requests.map((r) => r.tpotUs! / 1e6), TOKEN_LATENCY_BUCKETS_S],
      'gen_ai.server.request.duration': [requests.map((r) => r.e2eUs! / 1e6), REQUEST_LATENCY_BUCKETS_S],
      'teapot.run.inter_token_latency': [
        requests.flatMap((r) => [...r.itlUs].map((us) => us / 1e6)),
        TOKEN_LATENCY_BUCKETS_S,
      ],
    };
    for (const [name, [samples, bounds]] of Object.entries(expected)) {
      expect(receiver.latest(name)).toMatchObject({ kind: 'histogram', unit: 's' });
      const histogram = ofRun(name)!;
      expect(histogram.count).toBe(samples.length);
      expect(histogram.sum).toBeCloseTo(sum(samples), 9);
      expect(histogram.min).toBeCloseTo(Math.min(...samples), 12);
      expect(histogram.max).toBeCloseTo(Math.max(...samples), 12);
      expect(histogram.bounds).toEqual([...bounds]);
      expect(sum(histogram.bucketCounts!)).toBe(samples.length);
    }
    // The stored headline (ms) is a percentile of the samples sent (s).
    const ttft = expected['gen_ai.server.time_to_first_token'][0];
    expect(run.ttftP50Ms! / 1000).toBeGreaterThanOrEqual(Math.min(...ttft));
    expect(run.ttftP50Ms! / 1000).toBeLessThanOrEqual(Math.max(...ttft));

    expect(ofRun('teapot.run.output_tokens_per_second')?.value).toBe(run.outputTokensPerS);
    expect(receiver.latest('teapot.run.output_tokens_per_second')?.unit).toBe('{token}/s');
    expect(ofRun('teapot.run.client_saturated')?.value).toBe(run.clientSaturated ? 1 : 0);
    const succeeded = receiver
      .latest('teapot.run.requests')
      ?.points.find(
        (p) =>
          p.attributes['teapot.profile.id'] === run.profileId &&
          p.attributes['teapot.request.outcome'] === 'succeeded',
      );
    expect(succeeded?.value).toBe(run.requestsSucceeded);

    // The same samples in the worker's Prometheus histograms.
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = (name: string) =>
      Number(
        scraped
          .split('\n')
          .find((l) => l.startsWith(name) && l.includes(`profile_id="${run.profileId}"`))
          ?.split(' ')[1],
      );
    for (const [metric, otlpName] of [
      ['itl', 'teapot.run.inter_token_latency'],
      ['ttft', 'gen_ai.server.time_to_first_token'],
    ]) {
      expect(line(`teapot_run_${metric}_seconds_count{`)).toBe(expected[otlpName][0].length);
      expect(line(`teapot_run_${metric}_seconds_sum{`)).toBeCloseTo(sum(expected[otlpName][0]), 9);
    }

    const endpoint = await world.db.prisma.endpoint.findUniqueOrThrow({ where: { id: run.endpointId } });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: run.profileId! } });
    const config = await world.db.prisma.servingConfig.findFirstOrThrow({
      where: { endpointId: run.endpointId },
    });
    const simUrl = new URL(sim.baseUrl);
    expect(ofRun('gen_ai.server.time_to_first_token')?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      // The configuration's engine names the provider.
      'gen_ai.provider.name': config.engine,
      'gen_ai.request.model': sim.deployment.model.name,
      'server.address': simUrl.hostname,
      'server.port': Number(simUrl.port),
      'teapot.endpoint.id': run.endpointId,
      'teapot.endpoint.name': endpoint.name,
      'teapot.profile.id': run.profileId,
      'teapot.profile.name': profile.name,
      'teapot.config.version': 1,
    });
    expect(event).toMatchObject({
      eventName: 'teapot.run.finished',
      resource: { 'service.name': 'teapot-worker' },
    });
    expect(event.attributes).toMatchObject({
      'teapot.run.status': 'succeeded',
      'teapot.run.requests.succeeded': 8,
      'teapot.run.output_tokens_per_second': run.outputTokensPerS,
    });
  });

  it('sends a stored deployment verdict as an event, WARN when it regressed', async () => {
    const endpointId = await seedEndpoint(world, { baseUrl: 'http://127.0.0.1:9/v1' });
    const profileId = await seedProfile(world, endpointId);
    for (let i = 0; i < 3; i++) await storeSyntheticRun(world, { endpointId, profileId }, i + 1, 1);
    const deployment = await createDeployment(world, endpointId, profileId);
    for (let i = 0; i < 3; i++)
      await storeSyntheticRun(world, { endpointId, profileId }, 11 + i, 2, deployment.id);
    const analysis = new AnalysisQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
    await analysis.enqueueVerification(deployment.id).finally(() => analysis.close());

    const event = await waitFor('the verdict event', async () =>
      receiver.logs.find((log) => log.attributes['teapot.deployment.id'] === deployment.id),
    );
    const stored = await world.db.prisma.deployment.findUniqueOrThrow({ where: { id: deployment.id } });
    expect(stored.verdict).toBe('regressed');
    expect(event).toMatchObject({ eventName: 'teapot.deployment.verdict', severityNumber: 13 }); // WARN
    expect(event.attributes).toMatchObject({
      'teapot.deployment.label': 'fp8 -> fp16',
      'teapot.deployment.verdict': 'regressed',
      'teapot.endpoint.id': endpointId,
      'teapot.deployment.threshold': 0.1,
    });
    const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const [judged] = (event.body as { profiles: Array<{ profile: string; changes: unknown[] }> }).profiles;
    expect(judged).toMatchObject({ profile: profile.name, verdict: 'regressed' });
    expect(judged.changes).toContainEqual(
      expect.objectContaining({ metric: 'itl.p50', verdict: 'regressed' }),
    );
  });
});

it('refusing collector: runs succeed and each signal logs its failure once', async () => {
  const refused = `http://127.0.0.1:${await freePort()}`;
  const worker = await exportingWorker('otlp-refused', refused, { OTEL_EXPORTER_OTLP_TIMEOUT: '1000' });
  try {
    for (let i = 0; i < 3; i++) expect((await runOnce(world, runs, simulated(), 4)).status).toBe('succeeded');
    await worker.waitForLog(`OTLP logs export to ${refused}/v1/logs failed`);
    await worker.waitForLog(`OTLP metrics export to ${refused}/v1/metrics failed`);
    const failures = (signal: string) => worker.logs.split(`OTLP ${signal} export to`).length - 1;
    expect(failures('metrics')).toBe(1);
    expect(failures('logs')).toBe(1);
  } finally {
    await worker.stop();
  }
}, 90_000);

it('hanging collector: the next run starts while the export still waits for an answer', async () => {
  const hanging = await OtlpReceiver.start('hang');
  // An export that held the run's job up would hold it for the whole minute.
  const worker = await exportingWorker('otlp-hanging', hanging.url, { OTEL_EXPORTER_OTLP_TIMEOUT: '60000' });
  try {
    for (let i = 0; i < 2; i++) expect((await runOnce(world, runs, simulated(), 4)).status).toBe('succeeded');
    expect(hanging.pending).toBeGreaterThan(0);
  } finally {
    // Cut the hanging connections so the worker's last export fails at once and it can stop.
    await hanging.close();
    await worker.stop();
  }
}, 90_000);
