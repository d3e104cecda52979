import type { INestApplicationContext } from '@nestjs/common';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import {
  closeInOrder,
  REDIS_URL,
  seedEndpoint,
  seedManualRun,
  seedProfile,
  waitForRunToFinish,
} from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, type WorkerWorld } from './support/harness';

describe('the endpoint URL policy, again when a run connects', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;

  beforeAll(async () => {
    world = await createWorld();
    sim = await startSimulator({ gpu: 'h100-sxm', model: 'llama-8b', spinUs: 0 });
    // Loopback is not allowed to this worker, whatever the database says.
    app = await createWorkerApp({
      env: world.workerEnv({ WORKER_ID: 'url-policy', TEAPOT_ENDPOINT_URL_ALLOW: 'public,private' }),
      logs: false,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(() => closeInOrder(app, producer, sim, world));

  const runAgainst = async (baseUrl: string) => {
    const endpointId = await seedEndpoint(world, { baseUrl, model: 'llama-8b' });
    const runId = await seedManualRun(world, await seedProfile(world, endpointId, { requests: 2 }));
    await producer.enqueueRun(runId);
    return waitForRunToFinish(world, runId);
  };

  it('fails a run whose stored URL points at cloud metadata, sending nothing', async () => {
    const run = await runAgainst('http://169.254.169.254/v1');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/URL policy.*169\.254\.169\.254.*never connects/);
  });

  it('refuses a loopback endpoint the policy does not open, naming the setting', async () => {
    const run = await runAgainst(sim.baseUrl);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('TEAPOT_ENDPOINT_URL_ALLOW');
  });
});
