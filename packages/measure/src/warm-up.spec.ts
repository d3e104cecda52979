import { Worker } from 'node:worker_threads';
import { letCompilerFinish } from './warm-up';

/** Another thread of this process, busy for `ms` (as V8's compiler threads are after a warm-up). */
function busyThread(ms: number): Worker {
  return new Worker(`const until = Date.now() + ${ms}; while (Date.now() < until) { /* compiling */ }`, {
    eval: true,
  });
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

  it('waits while another thread of the process works, and ends soon after it stops', async () => {
    const worker = busyThread(200);
    // the thread is busy once it is online
    await new Promise((resolve) => worker.once('online', resolve));
    try {
      const waited = await timed(() => letCompilerFinish(() => false));
      expect(waited).toBeGreaterThan(150);
      expect(waited).toBeLessThan(450);
    } finally {
      await worker.terminate();
    }
  });

  it('gives up after half a second when the other thread never goes quiet, or at once when the run stops', async () => {
    const worker = busyThread(5000);
    await new Promise((resolve) => worker.once('online', resolve));
    try {
      const waited = await timed(() => letCompilerFinish(() => false));
      expect(waited).toBeGreaterThanOrEqual(480);
      expect(waited).toBeLessThan(800);
      expect(await timed(() => letCompilerFinish(() => true))).toBeLessThan(20);
    } finally {
      await worker.terminate();
    }
  });
});
