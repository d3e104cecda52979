import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import type { ServerDiagnostics } from '@teapot/contracts';
import type { Run } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { closeInOrder, REDIS_URL, writeHugeBody } from '@teapot/testing';
import type { HostResolver } from '@teapot/webhooks';
import { createWorkerApp } from '../src';
import { createWorld, runOnce, type WorkerWorld } from './support/harness';

const MODEL = 'llama-8b';

/**
 * The k-th scrape's exposition (k from 1): counters that restart after the 2nd scrape (a server
 * restart mid-run) and then grow by a fixed step per scrape, so over n scrapes each has increased by
 * exactly (n - 1) steps as Prometheus counts it; gauges idle at the first scrape (before the run) and
 * constant after; another model's series that must be left out.
 */
function exposition(k: number): string {
  const steps = (step: number) => (k <= 2 ? 1_000 * step + k * step : (k - 2) * step);
  const label = `{engine="0",model_name="${MODEL}"}`;
  const itlBucket = (le: string, perScrape: number) =>
    `vllm:inter_token_latency_seconds_bucket{engine="0",le="${le}",model_name="${MODEL}"} ${steps(perScrape)}`;
  return [
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${label} ${k === 1 ? 0 : 3}`,
    'vllm:num_requests_running{engine="0",model_name="other"} 500',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting${label} ${k === 1 ? 0 : 1}`,
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc${label} ${k === 1 ? 0 : 0.25}`,
    '# TYPE vllm:num_preemptions_total counter',
    `vllm:num_preemptions_total${label} ${steps(1)}`,
    'vllm:num_preemptions_total{engine="0",model_name="other"} 99999',
    `vllm:prefix_cache_queries_total${label} ${steps(100)}`,
    `vllm:prefix_cache_hits_total${label} ${steps(40)}`,
    `vllm:spec_decode_num_drafts_total${label} ${steps(10)}`,
    `vllm:spec_decode_num_draft_tokens_total${label} ${steps(40)}`,
    `vllm:spec_decode_num_accepted_tokens_total${label} ${steps(30)}`,
    '# TYPE vllm:inter_token_latency_seconds histogram',
    // per scrape: 2 gaps <= 5 ms, 2 in (5, 10] ms, 1 in (10, 20] ms; 40 ms in all
    itlBucket('0.005', 2),
    itlBucket('0.01', 4),
    itlBucket('0.02', 5),
    itlBucket('+Inf', 5),
    `vllm:inter_token_latency_seconds_sum${label} ${steps(0.04)}`,
    `vllm:inter_token_latency_seconds_count${label} ${steps(5)}`,
    '',
  ].join('\n');
}

type Route = (res: ServerResponse) => void;
const authorizations = new Set<string | undefined>();

describe('server metrics scraped while a run measures', () => {
  let world: WorkerWorld;
  let sim: RunningSimulator;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  let metrics: Server;
  let metricsBase: string;
  let served = 0;
  const routes: Record<string, Route> = {
    '/metrics': (res) =>
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(exposition(++served)),
    '/html': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'),
    '/garbage': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('{"not": "metrics"}\n'),
    '/500': (res) => res.writeHead(500).end('internal error'),
    '/stall': () => undefined,
    '/huge': (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeHugeBody(res, 'vllm:num_requests_running 1\n', 50e6);
    },
  };
  // No DNS here: this name stands for one that resolves to the cloud metadata address.
  const resolveHost: HostResolver = (host, _options, callback) =>
    host === 'metadata-alias.example'
      ? callback(null, [{ address: '169.254.169.254', family: 4 }])
      : callback(null, [{ address: '127.0.0.1', family: 4 }]);

  beforeAll(async () => {
    world = await createWorld();
    sim = await startSimulator({ gpu: 'h100-sxm', model: MODEL, spinUs: 0 });
    metrics = createServer((req, res) => {
      authorizations.add(req.headers.authorization);
      (routes[req.url ?? ''] ?? routes['/500'])(res);
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    metricsBase = `http://127.0.0.1:${(metrics.address() as AddressInfo).port}`;
    app = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'server-metrics',
        TEAPOT_ENDPOINT_URL_ALLOW: 'public,private,loopback',
        SERVER_METRICS_INTERVAL_MS: '150',
        SERVER_METRICS_TIMEOUT_MS: '1000',
        SERVER_METRICS_MAX_BYTES: String(1024 * 1024),
      }),
      logs: false,
      resolveHost,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(async () => {
    metrics.closeAllConnections();
    await new Promise((resolve) => metrics.close(resolve));
    await closeInOrder(app, producer, sim, world);
  });

  const measure = (metricsUrl: string, requests: number, outputTokens = 20): Promise<Run> =>
    runOnce(
      world,
      producer,
      {
        baseUrl: sim.baseUrl,
        model: MODEL,
        metricsUrl,
        metricsHeaders: { authorization: 'Bearer metrics-token' },
      },
      { requests, outputTokens, concurrency: 2 },
    );

  it('derives the figures exactly from counters that move (and reset) during the run', async () => {
    const run = await measure(`${metricsBase}/metrics`, 8, 64);
    expect(run.status).toBe('succeeded');
    const d = run.serverDiagnostics as unknown as ServerDiagnostics;
    // Every scrape the server answered was parsed: one before the run, the periodic ones, one after it.
    expect(d.failedScrapes).toBe(0);
    expect(d.scrapes).toBe(served);
    expect(d.scrapes).toBeGreaterThanOrEqual(3);
    const steps = d.scrapes - 1;
    expect(d).toEqual({
      scrapes: served,
      failedScrapes: 0,
      // The first scrape (idle, before the run's window) is not averaged in; the other model is left out.
      runningMean: 3,
      runningMax: 3,
      waitingMean: 1,
      waitingMax: 1,
      kvCacheUsageMean: 0.25,
      kvCacheUsageMax: 0.25,
      preemptions: steps,
      prefixCacheHitRate: 0.4,
      specDecodeAcceptanceRate: 0.75,
      specDecodeMeanAcceptedLength: 4,
      serverItlMeanMs: expect.closeTo(8, 9),
      // rank 0.5 x 5n in (5, 10] ms holding 2n from 2n: 5 + 5 x 0.5n / 2n
      serverItlP50Ms: expect.closeTo(6.25, 9),
      // rank 0.99 x 5n in (10, 20] ms holding n from 4n: 10 + 10 x 0.95n / n
      serverItlP99Ms: expect.closeTo(19.5, 9),
    });
    const samples = await world.db.prisma.runServerSamples.findUniqueOrThrow({ where: { runId: run.id } });
    expect(samples.offsetsMs).toHaveLength(served);
    // The scrapes bracket the run: the first before its anchor, the last after its measured window.
    expect(samples.offsetsMs[0]).toBeLessThan(0);
    expect(samples.offsetsMs[served - 1]).toBeGreaterThan(Number(run.durationUs) / 1000);
    const series = samples.series as { counters: { preemptions: number[] }; gauges: { running: number[] } };
    expect(series.counters.preemptions.slice(0, 3)).toEqual([1_001, 1_002, 1]);
    expect(series.gauges.running[0]).toBe(0);
    // The endpoint's metrics headers, decrypted by the worker, went with every scrape.
    expect([...authorizations]).toEqual(['Bearer metrics-token']);
  });

  it.each([
    ['/html', /metrics unavailable: answered text\/html, not the Prometheus text format/],
    ['/garbage', /metrics unavailable: invalid exposition text/],
    ['/500', /metrics unavailable: HTTP 500/],
    ['/stall', /metrics unavailable: timeout: no complete answer within 1000 ms/],
    ['/huge', /metrics unavailable: the body is over 1048576 bytes/],
  ])(
    'measures and stores the run when %s answers the scrapes, saying why figures are absent',
    async (path, reason) => {
      const run = await measure(metricsBase + path, 2);
      expect(run.status).toBe('succeeded');
      expect(run.itlP99Ms).not.toBeNull();
      const d = run.serverDiagnostics as unknown as ServerDiagnostics;
      expect(d.error).toMatch(reason);
      expect(d.scrapes).toBe(0);
      expect(d.failedScrapes).toBeGreaterThanOrEqual(2);
      expect(Object.keys(d).sort()).toEqual(['error', 'failedScrapes', 'scrapes']);
      expect(await world.db.prisma.runServerSamples.findUnique({ where: { runId: run.id } })).toBeNull();
    },
  );

  it('refuses at scrape time a name that resolves to the metadata address, and still measures', async () => {
    const port = new URL(metricsBase).port;
    const run = await measure(`http://metadata-alias.example:${port}/metrics`, 2);
    expect(run.status).toBe('succeeded');
    expect((run.serverDiagnostics as unknown as ServerDiagnostics).error).toMatch(
      /metrics unavailable: refused by the URL policy at connect time: metadata-alias.example \(169.254.169.254\) is a link-local address/,
    );
  });
});
