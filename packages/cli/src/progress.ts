import type { Progress } from '@teapot/measure';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const TTY_INTERVAL_MS = 100;
const PLAIN_INTERVAL_MS = 5000;
const BAR_WIDTH = 24;

/** One status line; the bar fills by requests done, or by elapsed time for a duration-bound run. */
export function formatProgress(progress: Progress, durationS?: number, bar = true): string {
  const done = progress.completed + progress.failed;
  const fraction =
    progress.total !== null && progress.total > 0
      ? done / progress.total
      : durationS !== undefined
        ? progress.elapsedS / durationS
        : 0;
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  const parts = [
    progress.total === null ? `${done} requests` : `${done}/${progress.total} requests`,
    `${progress.failed} failed`,
    `${progress.inFlight} in flight`,
    `${Math.round(progress.tokensPerS)} tok/s`,
    durationS === undefined
      ? `${progress.elapsedS.toFixed(1)} s`
      : `${progress.elapsedS.toFixed(1)}/${durationS} s`,
  ];
  const status = parts.join(' · ');
  return bar ? `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${status}` : status;
}

/**
 * One status line on stderr: redrawn in place on a terminal, a plain line every few seconds
 * otherwise (CI logs). Throttled, so that drawing costs the measuring event loop next to nothing.
 */
export class StatusLine {
  private lastDrawMs = -Infinity;
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    /** Prefixes each plain line, e.g. `teapot bench`. */
    private readonly command: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Draws `status()` unless the last line was drawn too recently (computed only when drawn). */
  show(status: (tty: boolean) => string): void {
    const tty = this.stream.isTTY === true;
    const now = this.now();
    if (now - this.lastDrawMs < (tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    this.lastDrawMs = now;
    if (tty) {
      const line = status(true).slice(0, Math.max(20, (this.stream.columns || 100) - 1));
      this.stream.write(`\r${line}\x1b[K`);
      this.drawn = true;
    } else {
      this.stream.write(`${this.command}: ${status(false)}\n`);
    }
  }

  /** Clears the line so that what follows starts on a clean one. */
  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** A run's progress: a bar by requests done (or elapsed time for a duration-bound run) on a terminal. */
export class ProgressReporter {
  private readonly line: StatusLine;

  constructor(
    stream: ProgressStream,
    private readonly durationS?: number,
    now?: () => number,
  ) {
    this.line = new StatusLine(stream, 'teapot bench', now);
  }

  update(progress: Progress): void {
    this.line.show((tty) => formatProgress(progress, this.durationS, tty));
  }

  finish(): void {
    this.line.finish();
  }
}
