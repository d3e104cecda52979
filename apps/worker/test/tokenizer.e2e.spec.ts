import type { INestApplicationContext } from '@nestjs/common';
import * as fs from 'node:fs';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import * as testing from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, type WorkerWorld } from './support/harness';

describe('runs of a profile naming the model tokenizer, read from TEAPOT_TOKENIZER_DIR at run time', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  const tokenizers = testing.tokenizerDirectory();

  beforeAll(async () => {
    world = await createWorld();
    // the simulator counts with the same tokenizer, so the server's usage is in the same tokens
    sim = await startSimulator({
      gpu: 'h100-sxm',
      model: 'llama-8b',
      spinUs: 0,
      tokenizer: testing.TEST_TOKENIZER,
    });
    app = await createWorkerApp({
      env: world.workerEnv({ WORKER_ID: 'tokenizer', TEAPOT_TOKENIZER_DIR: tokenizers.dir }),
      logs: false,
    });
    producer = new RunQueueProducer({ redis: testing.REDIS_URL, prefix: world.prefix });
  });

  afterAll(async () => {
    await testing.closeInOrder(app, producer, sim, world);
    tokenizers.remove();
  });

  async function runWith(tokenizer: string) {
    const endpointId = await testing.seedEndpoint(world, { baseUrl: sim.baseUrl, model: 'llama-8b' });
    const profileId = await testing.seedProfile(world, endpointId, {
      requests: 4,
      inputTokens: 57,
      outputTokens: 9,
    });
    await world.db.prisma.profile.update({ where: { id: profileId }, data: { tokenizer } });
    const runId = await testing.seedManualRun(world, profileId);
    await producer.enqueueRun(runId);
    return testing.waitForRunToFinish(world, runId);
  }

  it('builds prompts the server counts as asked and stores which tokenizer counted', async () => {
    const run = await runWith('llama/tokenizer.json');
    expect(run.status).toBe('succeeded');
    expect(run.summary).toMatchObject({
      promptTokens: 4 * 57,
      promptTokenSources: { usage: 4 },
      promptOverheadTokens: { min: 0, max: 0 },
      tokenizer: { name: 'llama/tokenizer.json', sizeBytes: fs.statSync(testing.TEST_TOKENIZER).size },
    });
  });

  it.each([
    ['llama/gone.json', /cannot read tokenizer "llama\/gone\.json" .*ENOENT/],
    ['weights.json', /weights\.json is not a tokenizer\.json/],
    ['../escape.json', /must not leave the tokenizer directory/],
  ])(
    'fails a run whose tokenizer %s cannot be used as a configuration error, sending nothing',
    async (name, why) => {
      const before = sim.stats().groundTruthResponses;
      const run = await runWith(name);
      expect(run).toMatchObject({ status: 'failed', errorClass: 'config' });
      expect(run.error).toMatch(why);
      expect(sim.stats().groundTruthResponses).toBe(before);
    },
  );
});
