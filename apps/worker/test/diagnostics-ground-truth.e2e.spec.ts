import type { INestApplicationContext } from '@nestjs/common';
import type { ClientDiagnostics, ServerDiagnostics } from '@teapot/contracts';
import type { Run } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import type { RunSummary } from '@teapot/measure';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '@teapot/simulator';
import { closeInOrder, REDIS_URL, type ProfileSeed } from '@teapot/testing';
import { createWorkerApp } from '../src';
import { createWorld, runOnce, type WorkerWorld } from './support/harness';

jest.setTimeout(60_000);

const MODEL = 'llama-8b';

type Counters = ReturnType<RunningSimulator['stats']>['engine']['counters'];

/** What the simulator's engine did over one run: its counters' increase from before to after. */
interface Truth {
  counters: Counters;
  /** The same, summed from the ground truth of each response the run recorded. */
  serving: {
    queries: number;
    hits: number;
    drafts: number;
    draftTokens: number;
    accepted: number;
    preemptions: number;
  };
  run: Run;
}

const within = (actual: number | undefined, expected: number, share: number) => {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(share * Math.abs(expected));
};

/**
 * The issues' ground-truth checks (24: server diagnostics, 25: reuse share and per-turn TTFT): runs
 * through the real worker against a real simulator whose `/metrics` the worker scrapes, set against
 * what the simulator's engine counted over the same run.
 */
describe('diagnostics against the simulator ground truth', () => {
  let world: WorkerWorld;
  let app: INestApplicationContext;
  let producer: RunQueueProducer;
  const sims: RunningSimulator[] = [];

  beforeAll(async () => {
    world = await createWorld();
    app = await createWorkerApp({
      env: world.workerEnv({
        WORKER_ID: 'diagnostics-ground-truth',
        TEAPOT_ENDPOINT_URL_ALLOW: 'public,private,loopback',
        SERVER_METRICS_INTERVAL_MS: '200',
      }),
      logs: false,
    });
    producer = new RunQueueProducer({ redis: REDIS_URL, prefix: world.prefix });
  });

  afterAll(() => closeInOrder(app, producer, ...sims, world));

  async function simulator(options: SimulatorOptions): Promise<RunningSimulator> {
    const sim = await startSimulator({ gpu: 'h100-sxm', model: MODEL, seed: 3, ...options });
    sims.push(sim);
    return sim;
  }

  async function measure(sim: RunningSimulator, profile: ProfileSeed): Promise<Truth> {
    const metricsUrl = sim.baseUrl.replace(/\/v1$/, '/metrics');
    const before = sim.stats().engine.counters;
    const run = await runOnce(world, producer, { baseUrl: sim.baseUrl, model: MODEL, metricsUrl }, profile);
    expect(run.status).toBe('succeeded');
    const after = sim.stats().engine.counters;
    const counters = Object.fromEntries(
      Object.entries(after).map(([key, value]) => [
        key,
        typeof value === 'number' ? value - (before[key as keyof Counters] as number) : value,
      ]),
    ) as unknown as Counters;
    const serving = { queries: 0, hits: 0, drafts: 0, draftTokens: 0, accepted: 0, preemptions: 0 };
    const requests = await world.db.prisma.runRequest.findMany({ where: { runId: run.id } });
    for (const request of requests) {
      const s = sim.groundTruth(request.responseId!)!.serving;
      serving.queries += s.prefixCacheQueryTokens;
      serving.hits += s.prefixCacheHitTokens;
      serving.drafts += s.drafts;
      serving.draftTokens += s.draftTokens;
      serving.accepted += s.acceptedTokens;
      serving.preemptions += s.preemptions;
    }
    return { counters, serving, run };
  }

  const server = (run: Run) => run.serverDiagnostics as unknown as ServerDiagnostics;
  const summary = (run: Run) => run.summary as unknown as RunSummary;

  it('speculative decoding: acceptance rate and accepted length as the engine counted them', async () => {
    const sim = await simulator({ speculativeTokens: 4, draftAcceptance: 0.7, spinUs: 0 });
    const { counters, serving, run } = await measure(sim, { requests: 12, outputTokens: 96, concurrency: 4 });
    // every draft the engine made during the run belongs to one of its responses
    expect(serving).toMatchObject({
      drafts: counters.specDecodeDrafts,
      draftTokens: counters.specDecodeDraftTokens,
      accepted: counters.specDecodeAcceptedTokens,
    });
    const rate = counters.specDecodeAcceptedTokens / counters.specDecodeDraftTokens;
    const length = 1 + counters.specDecodeAcceptedTokens / counters.specDecodeDrafts;
    const d = server(run);
    within(d.specDecodeAcceptanceRate, rate, 0.05);
    within(d.specDecodeMeanAcceptedLength, length, 0.05);
    // From the chunks alone: each mid-stream chunk is one verify step's tokens; the client leaves out
    // each stream's last chunk (often a shortened draft) where the server counts it, a few % at most.
    const client = run.clientDiagnostics as unknown as ClientDiagnostics;
    within(client.acceptedLengthEstimate, length, 0.05);
  });

  it('prefix caching: hit rate, and the reuse share the run reports, as the engine counted them', async () => {
    const sim = await simulator({ prefixCaching: true, spinUs: 0 });
    const workload = {
      kind: 'shared-prefix',
      prefixes: 3,
      prefixTokens: 128,
      requestsPerPrefix: 4,
      suffixTokens: 24,
      outputTokens: 8,
    };
    // concurrency 1: each prefix's first use has finished (and is cached) before its reuse
    const { counters, serving, run } = await measure(sim, { workload, requests: 12, concurrency: 1 });
    expect(serving).toMatchObject({ queries: counters.prefixCacheQueries, hits: counters.prefixCacheHits });
    const hitRate = counters.prefixCacheHits / counters.prefixCacheQueries;
    within(server(run).prefixCacheHitRate, hitRate, 0.05);
    const reuse = summary(run).workload!.expectedReuseShare!;
    expect(Math.abs(reuse - hitRate)).toBeLessThanOrEqual(0.02);
  });

  it('a small KV cache: preemptions as the engine counted them, usage near full', async () => {
    const sim = await simulator({ kvCacheTokens: 1024, spinUs: 0 });
    const { counters, serving, run } = await measure(sim, {
      requests: 16,
      inputTokens: 64,
      outputTokens: 96,
      concurrency: 12,
    });
    expect(counters.preemptions).toBeGreaterThan(0);
    expect(serving.preemptions).toBe(counters.preemptions);
    const d = server(run);
    expect(d.preemptions).toBe(counters.preemptions);
    expect(d.kvCacheUsageMax).toBeGreaterThanOrEqual(0.9);
  });

  it('multi-turn: later turns start sooner with prefix caching on, as soon without it', async () => {
    // One session (concurrency 1): its first turn prefills the long system prompt; a later turn
    // resends it with the history, so only a cache spares it the prefill.
    const workload = { kind: 'multi-turn', turns: 6, systemTokens: 1024, inputTokens: 32, outputTokens: 8 };
    const profile = { workload, requests: 6, concurrency: 1 };
    const cached = await measure(await simulator({ prefixCaching: true }), profile);
    const uncached = await measure(await simulator({ prefixCaching: false }), profile);
    const turns = (t: Truth) => summary(t.run).turns!;
    const ratio = (t: Truth) => turns(t).laterTtftMs!.p50 / turns(t).firstTtftMs!.p50;
    expect(ratio(cached)).toBeLessThan(0.5);
    // Without a cache a later turn prefills the system prompt again, plus its slightly longer history
    // (about 1.1 x the first turn's work); wide bounds, since the first turn is a single sample.
    expect(ratio(uncached)).toBeGreaterThan(0.75);
    expect(ratio(uncached)).toBeLessThan(1.6);
    const hitRate = cached.counters.prefixCacheHits / cached.counters.prefixCacheQueries;
    expect(Math.abs(summary(cached.run).workload!.expectedReuseShare! - hitRate)).toBeLessThanOrEqual(0.02);
  });
});
