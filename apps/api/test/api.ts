import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type ApiEnv, loadApiEnv } from '@teapot/config';
import { createTestWorld, type TestWorld } from '@teapot/testing';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../src/app';
import { PrismaService } from '../src/prisma/prisma.service';

export interface RunningApi {
  app: NestExpressApplication;
  env: ApiEnv;
  /** The database and Redis prefix this app runs over. */
  world: TestWorld;
  prisma: PrismaService;
  /** supertest against the listening server. */
  http: TestAgent;
  /** The TEAPOT_API_KEY (write scope), as an Authorization header value. */
  auth: string;
  /** supertest against the listening server, every request sent with `auth`. */
  authed: TestAgent;
  /** Every log line the app wrote so far. */
  logs(): string;
  /** Stops the app and drops its world (unless the world was shared in). */
  close(): Promise<void>;
  /** Stops the app only. */
  closeApp(): Promise<void>;
}

/** The real app from createApp(), on port 0, over its own database and Redis prefix. */
export async function startApi(
  overrides: Record<string, string> = {},
  /** Another app's world, to start a second process over the same database (a restart). */
  shared?: TestWorld,
): Promise<RunningApi> {
  const world = shared ?? (await createTestWorld({ poolMax: 1 }));
  const env = loadApiEnv(
    world.env({
      TEAPOT_API_KEY: `tpk_test_${randomBytes(18).toString('base64url')}`,
      LOG_LEVEL: 'info',
      PORT: '0',
      ...overrides,
    }),
  );
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = await createApp(env, { logDestination: sink });
  await app.listen(0, '127.0.0.1');
  const auth = `Bearer ${env.TEAPOT_API_KEY}`;
  return {
    app,
    env,
    world,
    prisma: app.get(PrismaService),
    http: request(app.getHttpServer()),
    auth,
    authed: request.agent(app.getHttpServer()).set('authorization', auth),
    logs: () => lines.join(''),
    async close() {
      await app.close();
      if (!shared) await world.close();
    },
    closeApp: () => app.close(),
  };
}

/**
 * The test file's API: started (startApi) before its tests and closed after them. Register it before
 * the file's own beforeAll hooks, which then see it started; like a `let` set in beforeAll, read it
 * inside hooks and tests only.
 */
export function startApiForFile(overrides: Record<string, string> = {}): RunningApi {
  const api = {} as RunningApi;
  beforeAll(async () => {
    Object.assign(api, await startApi(overrides));
  });
  // close is absent when the start failed: that failure is the one to report.
  afterAll(() => api.close?.());
  return api;
}

let unique = 0;

/** A valid endpoint body; `overrides` replace fields. */
export function endpointBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  unique += 1;
  return {
    name: `endpoint-${process.pid}-${unique}`,
    baseUrl: 'http://127.0.0.1:8000/v1',
    apiKind: 'chat',
    model: 'llama-8b',
    ...overrides,
  };
}

/** A valid profile body for `endpointId`; `overrides` replace fields. */
export function profileBody(
  endpointId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  unique += 1;
  return {
    name: `profile-${unique}`,
    endpointId,
    workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 64 },
    load: { kind: 'closed', concurrency: 4 },
    requestCount: 20,
    ...overrides,
  };
}

/** POST /assets?`query` of a file as the body, as the write key (the answer is not checked). */
export function uploadAsset(
  api: RunningApi,
  body: Buffer | string,
  query: string,
  type = 'application/x-ndjson',
) {
  return api.http
    .post(`/assets?${query}`)
    .set('authorization', api.auth)
    .set('content-type', type)
    .send(body);
}

/** POSTs as the write key and insists on 201; returns the body. */
export async function created<T = Record<string, unknown>>(
  api: RunningApi,
  path: string,
  body: Record<string, unknown>,
): Promise<T> {
  const response = await api.authed.post(path).send(body);
  if (response.status !== 201) {
    throw new Error(`POST ${path} -> ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body as T;
}
