import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { runBenchmark } from '../run';
import type { StreamTransport } from '../transport';
import type { ApiKind } from '../types';
import { collectGarbage, letCompilerFinish, warmUp } from './warm-up';

/** Runs `check` while another thread of this process is busy for `ms` (as V8's compiler threads are after a warm-up). */
async function whileThreadBusy(ms: number, check: () => Promise<void>): Promise<void> {
  const worker = new Worker(`const until = Date.now() + ${ms}; while (Date.now() < until) {}`, {
    eval: true,
  });
  // the thread is busy once it is online
  await new Promise((resolve) => worker.once('online', resolve));
  try {
    await check();
  } finally {
    await worker.terminate();
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

describe('letCompilerFinish: the wait between the warm-up and the measured window', () => {
  it('ends within a few steps when the process is quiet', async () => {
    expect(await timed(() => letCompilerFinish(() => false))).toBeLessThan(150);
  });

  it('waits while another thread of the process works, and ends soon after it stops', () =>
    whileThreadBusy(200, async () => {
      const waited = await timed(() => letCompilerFinish(() => false));
      expect(waited).toBeGreaterThan(150);
      expect(waited).toBeLessThan(450);
    }));

  it('gives up after half a second when the other thread never goes quiet, or at once when the run stops', () =>
    whileThreadBusy(5000, async () => {
      const waited = await timed(() => letCompilerFinish(() => false));
      expect(waited).toBeGreaterThanOrEqual(480);
      expect(waited).toBeLessThan(800);
      expect(await timed(() => letCompilerFinish(() => true))).toBeLessThan(20);
    }));
});

describe('collectGarbage: the heap collected before the measured window', () => {
  it('runs a full collection of this thread where the process exposes gc (node --expose-gc)', () => {
    // the built module in a process of its own: this one (jest's) does not expose gc
    const script = `
      const { collectGarbage } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'speed', 'warm-up.js'))});
      let garbage = Array.from({ length: 200000 }, (_, i) => ({ i, text: 'row ' + i }));
      const before = process.memoryUsage().heapUsed;
      garbage = null;
      const collected = collectGarbage();
      process.stdout.write(JSON.stringify({ collected, freed: before - process.memoryUsage().heapUsed }));`;
    const output = execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
    const { collected, freed } = JSON.parse(output) as { collected: boolean; freed: number };
    expect(collected).toBe(true);
    // ~20 MB of objects just dropped: only a full collection gets them back at once
    expect(freed).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('sets no V8 flag: where gc is not exposed, it collects nothing and the warm-up goes on', () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(collectGarbage()).toBe(false);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});

describe('warmUp: rehearsals against the loopback responder', () => {
  it.each<ApiKind>(['chat', 'completions'])(
    'serves whole %s streams, and rehearses long streams before the full GC, then again with many short requests',
    async (apiKind) => {
      const steps: string[] = [];
      const pool: StreamTransport = {
        dispatch: () => undefined,
        destroy: async () => undefined,
        preconnect: async (count) => count,
      };
      const report = await warmUp(
        () => false,
        pool,
        4,
        null,
        async (baseUrl, { streams, requests, chunks }) => {
          steps.push(`${requests}x${chunks}`);
          const result = await runBenchmark({
            target: { baseUrl, apiKind, model: 'm' },
            workload: { kind: 'synthetic', inputTokens: 8, outputTokens: chunks },
            load: { kind: 'closed', concurrency: streams },
            requests,
            warmUp: false,
          });
          const whole = result.requests.filter((r) => r.outcome === 'ok' && r.outputTokens === chunks);
          expect(whole).toHaveLength(requests);
          // usage in every event, and usage once at the end: both ways servers report it
          for (const source of ['usage_delta', 'usage_final'])
            expect(whole.some((r) => r.tokenSource === source)).toBe(true);
          return whole.length * chunks;
        },
        () => steps.push('prepare and collect'),
      );
      expect(steps).toEqual(['48x64', 'prepare and collect', '32x64', '3000x2']);
      expect(report).toMatchObject({ chunks: 48 * 64 + 32 * 64 + 3000 * 2, connections: 4 });
    },
    30_000,
  );

  it('rehearses a small run with as many short requests as it sends, any other with enough to compile them', async () => {
    const steps: string[] = [];
    const pool: StreamTransport = { dispatch: () => undefined, destroy: async () => undefined };
    const rehearse = async (_baseUrl: string, { requests, chunks }: { requests: number; chunks: number }) => {
      steps.push(`${requests}x${chunks}`);
      return requests * chunks;
    };
    await warmUp(() => false, pool, 0, 150, rehearse);
    await warmUp(() => false, pool, 0, 1024, rehearse);
    await warmUp(() => false, pool, 0, null, rehearse);
    expect(steps).toEqual([
      '48x64',
      '32x64',
      '150x2',
      '48x64',
      '32x64',
      '3000x2',
      '48x64',
      '32x64',
      '3000x2',
    ]);
  });
});
