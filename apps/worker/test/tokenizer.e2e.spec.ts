import type { INestApplicationContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { AssetStore } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import * as testing from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, type WorkerWorld } from './support/harness';

describe('runs of a profile naming the model tokenizer, a path or an upload, read at run time', () => {
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

  async function runWith(tokenizer: string | { sha256: string }) {
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

  it('measures with an uploaded tokenizer, kept by this worker for the next runs of the same hash', async () => {
    const bytes = fs.readFileSync(testing.TEST_TOKENIZER);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const assets = new AssetStore(world.db);
    await assets.put('tokenizer', 'application/octet-stream', bytes);
    const run = await runWith({ sha256 });
    expect(run.status).toBe('succeeded');
    const counted = {
      promptTokens: 4 * 57,
      promptTokenSources: { usage: 4 },
      promptOverheadTokens: { min: 0, max: 0 },
      tokenizer: { name: `uploaded ${sha256.slice(0, 12)}`, sha256, sizeBytes: bytes.length },
    };
    expect(run.summary).toMatchObject(counted);
    // gone from the database, still in this worker's cache: the next run of the model reads no bytea
    await world.db.prisma.asset.delete({ where: { sha256 } });
    const again = await runWith({ sha256 });
    expect({ status: again.status, summary: again.summary }).toMatchObject({
      status: 'succeeded',
      summary: counted,
    });
  });

  it.each([
    ['an unknown hash', null, /uploaded tokenizer (ab){32}, but no asset is stored under it/],
    ['a dataset', 'dataset' as const, /the asset stored under it is a dataset/],
  ])(
    'fails a run naming %s as its tokenizer as a configuration error, sending nothing',
    async (_what, storedKind, why) => {
      const sha256 =
        storedKind === null
          ? 'ab'.repeat(32)
          : (await new AssetStore(world.db).put(storedKind, 'application/x-ndjson', Buffer.from('{}'))).asset
              .sha256;
      const before = sim.stats().groundTruthResponses;
      const run = await runWith({ sha256 });
      expect(run).toMatchObject({ status: 'failed', errorClass: 'config' });
      expect(run.error).toMatch(why);
      expect(sim.stats().groundTruthResponses).toBe(before);
    },
  );

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
