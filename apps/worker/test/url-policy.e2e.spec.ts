import type { INestApplicationContext } from '@nestjs/common';
import { readRunRequests } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { closeInOrder, REDIS_URL } from '@teapot/testing';
import type { HostResolver } from '@teapot/webhooks';
import { createWorkerApp } from '../src';
import { createWorld, runOnce, type WorkerWorld } from './support/harness';

/**
 * Stands in for DNS (there is none here): nip.io answers with the address written in the name, and
 * `loopback.example` points at this machine.
 */
const resolveHost: HostResolver = (host, _options, callback) => {
  const nipIo = /^(\d+\.\d+\.\d+\.\d+)\.nip\.io$/.exec(host);
  const address = nipIo ? nipIo[1] : host === 'loopback.example' ? '127.0.0.1' : null;
  if (address === null) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    return;
  }
  callback(null, [{ address, family: 4 }]);
};

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
      resolveHost,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(() => closeInOrder(app, producer, sim, world));

  const runAgainst = (baseUrl: string) => runOnce(world, producer, { baseUrl, model: 'llama-8b' });

  it('fails a run whose stored URL points at cloud metadata, sending nothing', async () => {
    const run = await runAgainst('http://169.254.169.254/v1');
    expect(run).toMatchObject({ status: 'failed', errorClass: 'config' });
    expect(run.error).toMatch(/URL policy.*169\.254\.169\.254.*never connects/);
  });

  it('refuses a loopback endpoint the policy does not open, naming the setting', async () => {
    const run = await runAgainst(sim.baseUrl);
    expect(run).toMatchObject({ status: 'failed', errorClass: 'config' });
    expect(run.error).toContain('TEAPOT_ENDPOINT_URL_ALLOW');
  });

  it.each(['127.1', '2130706433', '0x7f000001'])(
    'judges the host %s as the loopback address it is',
    async (host) => {
      const run = await runAgainst(sim.baseUrl.replace('127.0.0.1', host));
      expect(run).toMatchObject({ status: 'failed', errorClass: 'config' });
      expect(run.error).toContain(
        '127.0.0.1 is a loopback address; allowed only when TEAPOT_ENDPOINT_URL_ALLOW includes "loopback"',
      );
      expect(sim.stats().groundTruthResponses).toBe(0);
    },
  );

  it.each([
    ['169.254.169.254.nip.io', /169\.254\.169\.254\.nip\.io \(169\.254\.169\.254\) is a link-local address/],
    ['loopback.example', /loopback\.example \(127\.0\.0\.1\) is a loopback address/],
  ])(
    'refuses the name %s by the address it resolves to, at connect time, as client_config',
    async (name, message) => {
      const run = await runAgainst(`http://${name}:${new URL(sim.baseUrl).port}/v1`);
      expect(run).toMatchObject({
        status: 'failed',
        errorClass: 'endpoint',
        errorCounts: { client_config: 2 },
      });
      const [first] = await readRunRequests(world.db, run.id);
      expect(first.error?.message).toMatch(message);
      expect(sim.stats().groundTruthResponses).toBe(0);
    },
  );
});
