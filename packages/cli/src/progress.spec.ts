import type { Progress } from '@teapot/measure';
import { formatProgress, ProgressReporter } from './progress';

const progress = (over: Partial<Progress> = {}): Progress => ({
  completed: 30,
  failed: 2,
  inFlight: 8,
  total: 64,
  outputTokens: 3840,
  elapsedS: 3.21,
  tokensPerS: 1200.4,
  ...over,
});

describe('formatProgress', () => {
  it('fills the bar by requests done and shows failures and live tokens/s', () => {
    expect(formatProgress(progress())).toBe(
      '[############............] 32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s',
    );
    expect(formatProgress(progress(), undefined, false)).toBe(
      '32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s',
    );
  });

  it('fills the bar by elapsed time when the run is bounded by duration', () => {
    expect(formatProgress(progress({ total: null, elapsedS: 7.5 }), 10)).toBe(
      '[##################......] 32 requests · 2 failed · 8 in flight · 1200 tok/s · 7.5/10 s',
    );
  });
});

describe('ProgressReporter', () => {
  /** What a reporter wrote for updates at the given clock times (ms), then finish(). */
  function written(isTTY: boolean, updates: Array<[atMs: number, over?: Partial<Progress>]>): string[] {
    const writes: string[] = [];
    let now = 0;
    const reporter = new ProgressReporter(
      { isTTY, columns: 200, write: (text: string) => writes.push(text) },
      undefined,
      () => now,
    );
    for (const [atMs, over] of updates) {
      now = atMs;
      reporter.update(progress(over));
    }
    reporter.finish();
    return writes;
  }

  it('redraws one terminal line at most every 100 ms and clears it at the end', () => {
    const writes = written(true, [[0], [50], [120, { completed: 40 }]]);
    expect(writes).toHaveLength(3);
    expect(writes[0].startsWith('\r[############............] 32/64 requests')).toBe(true);
    expect(writes[0].endsWith('\x1b[K')).toBe(true);
    expect(writes[1]).toContain('42/64 requests');
    expect(writes[2]).toBe('\r\x1b[K');
  });

  it('writes a plain line every 5 s when stderr is not a terminal', () => {
    expect(written(false, [[0], [4000], [5000]])).toEqual([
      'teapot bench: 32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s\n',
      'teapot bench: 32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s\n',
    ]);
  });
});
