import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createApp } from '@teapot/api';
import { loadApiEnv } from '@teapot/config';
import { recomputeChangePoints } from '@teapot/analysis';
import { ChangePointStore, persistRunResult } from '@teapot/db';
import { syntheticRunResult } from '@teapot/db/testing';
import { createTestWorld } from '@teapot/testing';
import { runBenchmark } from '@teapot/measure';
import { type RunningSimulator, startSimulator } from '@teapot/simulator';
import { type SeededSweep, seedSweeps } from './seed-sweeps';

/** A run's scraped server metrics: a queue that builds, the KV cache filling, a restart's counter drop. */
const SERVER_METRICS = {
  diagnostics: {
    scrapes: 4,
    failedScrapes: 1,
    error: '1 of 5 scrapes failed: HTTP 503',
    runningMean: 5,
    runningMax: 6,
    waitingMean: 1.5,
    waitingMax: 3,
    kvCacheUsageMean: 0.8,
    kvCacheUsageMax: 0.97,
    preemptions: 4,
    serverItlP50Ms: 6.25,
    serverItlP99Ms: 19.5,
  },
  offsetsMs: [-3, 400, 900, 1600],
  series: {
    gauges: { running: [0, 4, 6, 0], waiting: [0, 0, 3, 0], kvCacheUsage: [0.1, 0.63, 0.97, 0.2] },
    counters: { preemptions: [10, 12, 1, 2] },
    histograms: {},
  },
};

export const WEB_DIST = path.join(__dirname, '..', 'dist');

export interface DashboardWorld {
  /** Where the API (and so the dashboard) listens, e.g. http://127.0.0.1:PORT */
  baseUrl: string;
  readKey: string;
  endpoints: Array<{ id: string; name: string; runIds: string[] }>;
  /** fp16's two finished sweeps, older first (their point runs are not in `runIds`). */
  sweeps: SeededSweep[];
  close(): Promise<void>;
}

async function call<T>(
  baseUrl: string,
  key: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${route} -> ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** fp16's history before its measured runs: this many runs an hour apart, the second half 50% slower. */
const HISTORY_RUNS = 24;

/**
 * The real API serving the built dashboard over its own database and Redis prefix, seeded the way
 * the worker would: runs queued through the API, measured against real simulators, stored by the
 * real writer. One endpoint's simulator answers some requests with 429, so a run has errors by class.
 * fp16 also has a stored history with a step in it, and its change points computed by the analysis
 * the worker runs, so its trend has one to draw, and two finished sweeps (seed-sweeps.ts).
 */
export async function startDashboardWorld(runsPerEndpoint = 3): Promise<DashboardWorld> {
  const world = await createTestWorld({ poolMax: 2 });
  const store = world.db;
  const env = loadApiEnv(
    world.env({
      TEAPOT_API_KEY: `tpk_test_${randomBytes(18).toString('base64url')}`,
      TEAPOT_WEB_DIR: WEB_DIST,
      LOG_LEVEL: 'warn',
      PORT: '0',
    }),
  );
  const sims: RunningSimulator[] = [];
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  const close = async () => {
    await Promise.all(sims.map((sim) => sim.close()));
    await app?.close();
    await world.close();
  };
  try {
    app = await createApp(env);
    await app.listen(0, '127.0.0.1');
    const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const write = env.TEAPOT_API_KEY;
    const readKey = (
      await call<{ key: string }>(baseUrl, write, 'POST', '/api-keys', { name: 'dashboard', scope: 'read' })
    ).key;
    const endpoints: DashboardWorld['endpoints'] = [];
    let sweeps: SeededSweep[] = [];
    for (const quant of ['fp16', 'fp8'] as const) {
      const sim = await startSimulator({
        gpu: 'h100-sxm',
        model: 'llama-8b',
        quant,
        seed: quant === 'fp16' ? 3 : 4,
        fault: quant === 'fp8' ? { mode: '429', rate: 0.2, retryAfterS: 1 } : undefined,
      });
      sims.push(sim);
      const endpoint = await call<{ id: string; name: string }>(baseUrl, write, 'POST', '/endpoints', {
        name: `llama-8b-h100-${quant}`,
        baseUrl: sim.baseUrl,
        apiKind: 'chat',
        model: sim.deployment.model.name,
        config: {
          engine: 'teapot-sim',
          engineVersion: '0.1.0',
          gpuModel: 'H100 SXM',
          gpuCount: 1,
          weightQuant: quant,
          // fp16 is priced, so its sweeps have a cost at capacity.
          usdPerGpuHour: quant === 'fp16' ? 2.5 : undefined,
        },
      });
      const profile = await call<{ id: string }>(baseUrl, write, 'POST', '/profiles', {
        name: 'chat-48-in-24-out-c4',
        endpointId: endpoint.id,
        workload: { kind: 'synthetic', inputTokens: 48, outputTokens: 24 },
        load: { kind: 'closed', concurrency: 4 },
        requestCount: 16,
      });
      const runIds: string[] = [];
      if (quant === 'fp16') {
        for (let i = 0; i < HISTORY_RUNS; i++) {
          const run = await call<{ id: string }>(baseUrl, write, 'POST', '/runs', { profileId: profile.id });
          const startedAt = new Date(Date.now() - (HISTORY_RUNS + 1 - i) * 3_600_000);
          await store.prisma.run.update({
            where: { id: run.id },
            data: { status: 'running', queuedAt: startedAt, startedAt },
          });
          // Run-to-run jitter of a few percent, as real series have, around a 50% step.
          const gapScale = (i < HISTORY_RUNS / 2 ? 1 : 1.5) * (1 + 0.015 * ((i * 7) % 5));
          await persistRunResult(
            store,
            run.id,
            syntheticRunResult({ requests: 16, tokensPerRequest: 24, seed: 100 + i, gapScale }),
          );
          runIds.push(run.id);
        }
      }
      for (let i = 0; i < runsPerEndpoint; i++) {
        const run = await call<{ id: string }>(baseUrl, write, 'POST', '/runs', { profileId: profile.id });
        const result = await runBenchmark({
          target: { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.deployment.model.name },
          workload: { kind: 'synthetic', inputTokens: 48, outputTokens: 24 },
          load: { kind: 'closed', concurrency: 4 },
          requests: 16,
          warmupRequests: 1,
          seed: i + 1,
          forceOutputLength: true,
        });
        // fp8 says what its server's metrics said (as a worker scraping a metrics URL stores it).
        await persistRunResult(
          store,
          run.id,
          result,
          quant === 'fp8' ? { serverMetrics: SERVER_METRICS } : {},
        );
        runIds.push(run.id);
        // A deployment between fp16's runs, for the trend's marker (its post-deployment runs stay queued).
        if (quant === 'fp16' && i === 0) {
          await call(baseUrl, write, 'POST', '/deployments', {
            endpointId: endpoint.id,
            label: 'moved to FP16 weights',
          });
        }
      }
      if (quant === 'fp16') {
        await recomputeChangePoints(new ChangePointStore(store), {
          endpointId: endpoint.id,
          profileId: profile.id,
        });
        sweeps = await seedSweeps(store, { endpointId: endpoint.id, profileId: profile.id });
      }
      endpoints.push({ id: endpoint.id, name: endpoint.name, runIds });
    }
    return { baseUrl, readKey, endpoints, sweeps, close };
  } catch (error) {
    await close();
    throw error;
  }
}
