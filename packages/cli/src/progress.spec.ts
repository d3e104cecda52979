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
  function stream(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, isTTY, columns: 200, write: (text: string) => writes.push(text) };
  }

  it('redraws one terminal line at most every 100 ms and clears it at the end', () => {
    let now = 0;
    const tty = stream(true);
    const reporter = new ProgressReporter(tty, undefined, () => now);
    reporter.update(progress());
    now = 50;
    reporter.update(progress());
    now = 120;
    reporter.update(progress({ completed: 40 }));
    reporter.finish();
    expect(tty.writes).toHaveLength(3);
    expect(tty.writes[0].startsWith('\r[############............] 32/64 requests')).toBe(true);
    expect(tty.writes[0].endsWith('\x1b[K')).toBe(true);
    expect(tty.writes[1]).toContain('42/64 requests');
    expect(tty.writes[2]).toBe('\r\x1b[K');
  });

  it('writes a plain line every 5 s when stderr is not a terminal', () => {
    let now = 0;
    const log = stream(false);
    const reporter = new ProgressReporter(log, undefined, () => now);
    reporter.update(progress());
    now = 4000;
    reporter.update(progress());
    now = 5000;
    reporter.update(progress());
    reporter.finish();
    expect(log.writes).toEqual([
      'teapot bench: 32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s\n',
      'teapot bench: 32/64 requests · 2 failed · 8 in flight · 1200 tok/s · 3.2 s\n',
    ]);
  });
});
