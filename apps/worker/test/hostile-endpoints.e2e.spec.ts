import type { INestApplicationContext } from '@nestjs/common';
import { readRunRequests } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { closeInOrder, REDIS_URL } from '@teapot/testing';
import { createWorkerApp } from '../src';
import { streamingEndpoint, type LocalEndpoint } from './support/local-endpoint';
import { createWorld, runOnce, type WorkerWorld } from './support/harness';

/** What a misbehaving OpenAI-compatible server streams, by the model it is asked for. */
const ANSWERS: Record<string, string[]> = {
  'usage-1e12': [chunk({ content: 'a' }, 'stop', { prompt_tokens: 4, completion_tokens: 1e12 })],
  'usage-negative': [chunk({ content: 'a' }, 'stop', { prompt_tokens: 4, completion_tokens: -100 })],
  'no-content': [
    'event: completion\ndata: {"choices":[{"delta":{"content":"a"}}]}\n\n',
    'data: {"choices":[]}\n\n',
    'data: {"choices":[{"text":null,"finish_reason":"stop"}]}\n\n',
  ],
};

function chunk(delta: object, finishReason: string | null, usage?: object): string {
  return `data: ${JSON.stringify({ id: 'r', choices: [{ index: 0, delta, finish_reason: finishReason }], usage })}\n\n`;
}

function hostileServer(): Promise<LocalEndpoint> {
  return streamingEndpoint((res, model) => {
    for (const event of ANSWERS[model]) res.write(event);
    res.end('data: [DONE]\n\n');
  });
}

describe('runs against endpoints that answer 200 with no measurement in it', () => {
  let world: WorkerWorld;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  let server: Awaited<ReturnType<typeof hostileServer>>;

  beforeAll(async () => {
    world = await createWorld();
    server = await hostileServer();
    app = await createWorkerApp({ env: world.workerEnv({ WORKER_ID: 'hostile' }), logs: false });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(() => closeInOrder(app, producer, server, world));

  const runAgainst = async (model: string) => {
    const run = await runOnce(world, producer, { baseUrl: server.baseUrl, model }, 3);
    return { run, requests: await readRunRequests(world.db, run.id) };
  };

  it.each([
    ['usage-1e12', 'invalid_usage'],
    ['usage-negative', 'invalid_usage'],
    ['no-content', 'no_tokens'],
  ])(
    '%s: the run is stored as an endpoint failure (%s), with its requests and no negative rate',
    async (model, kind) => {
      const { run, requests } = await runAgainst(model);
      expect(run).toMatchObject({
        status: 'failed',
        errorClass: 'endpoint',
        errorCounts: { [kind]: 3 },
        errorRate: 1,
        requestsSucceeded: 0,
        requestsFailed: 3,
      });
      expect(run.outputTokensPerS ?? 0).toBeGreaterThanOrEqual(0);
      expect(requests.filter((r) => !r.warmup)).toHaveLength(3);
      for (const record of requests) {
        expect(record.error?.kind).toBe(kind);
        expect(record.outputTokens).toBeGreaterThanOrEqual(0);
      }
    },
  );
});
