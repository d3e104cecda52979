import { Worker } from 'node:worker_threads';
import { collectGarbage, letCompilerFinish } from './warm-up';

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
  it('runs a full collection of this thread, without --expose-gc', () => {
    let garbage: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `row ${i}` }));
    const before = process.memoryUsage().heapUsed;
    expect((garbage as unknown[]).length).toBe(200_000);
    garbage = null;
    collectGarbage();
    // ~20 MB of objects just dropped: only a full collection gets them back at once
    expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(10 * 1024 * 1024);
  });
});
