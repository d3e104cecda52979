import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Where the launcher writes: the terminal in main.ts, a buffer in tests. */
export interface Output {
  write(text: string): void;
}

export interface ChildSpec {
  /** Prefix of its log lines, e.g. "api". */
  name: string;
  /** A JavaScript file run with this Node.js. */
  script: string;
  args?: string[];
  env: Record<string, string>;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const TAIL_LINES = 40;
const ACCESS_LOG = /^INFO request completed\b/;
const PINO_LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/**
 * One service of the stack in its own process. It runs in its own process group so that Ctrl-C in
 * the terminal reaches only the launcher, which then stops the children in order (worker first).
 */
export class StackChild {
  readonly process: ChildProcess;
  readonly exited: Promise<ChildExit>;
  private readonly tail: string[] = [];
  private readonly lineListeners = new Set<(line: string) => void>();
  private exit: ChildExit | null = null;

  constructor(
    readonly spec: ChildSpec,
    private readonly output: Output,
    private readonly verbose: boolean,
  ) {
    this.process = spawn(process.execPath, [spec.script, ...(spec.args ?? [])], {
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      // spawn failures (ENOENT of node itself) arrive as 'error' without 'exit'.
      this.process.once('error', (error) => {
        this.onLine(`could not start: ${error.message}`);
        this.exit ??= { code: null, signal: null };
        resolve(this.exit);
      });
    });
    for (const stream of [this.process.stdout, this.process.stderr]) {
      if (stream)
        createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
    }
  }

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** The last log lines (at most `count`), for the message when something went wrong. */
  recentLines(count = TAIL_LINES): string[] {
    return this.tail.slice(-count);
  }

  /** Resolves with the first line (from now on) that matches. */
  waitForLine(pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve) => {
      const listener = (line: string) => {
        const match = pattern.exec(line);
        if (!match) return;
        this.lineListeners.delete(listener);
        resolve(match);
      };
      this.lineListeners.add(listener);
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs: number): Promise<ChildExit> {
    if (this.exit) return this.exit;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** For the launcher's exit hook: synchronous, no waiting. */
  kill(): void {
    if (this.exit === null) this.signal('SIGKILL');
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      this.process.kill(signal);
    } catch {
      // Already gone between the check and the signal.
    }
  }

  private onLine(raw: string): void {
    const line = readable(raw);
    // The API's access log of the launcher's own polling would push everything useful out of the tail.
    if (!ACCESS_LOG.test(line)) {
      this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
    }
    if (this.verbose) this.output.write(`[${this.name}] ${line}\n`);
    for (const listener of this.lineListeners) listener(line);
  }
}

/** A pino JSON line as "LEVEL message (context)"; any other line as it came. */
export function readable(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return line;
  const { level, msg, context, err } = entry as Record<string, unknown>;
  if (typeof msg !== 'string') return line;
  const label = typeof level === 'number' ? (PINO_LEVELS[level] ?? String(level)) : String(level ?? '');
  const where = typeof context === 'string' ? ` (${context})` : '';
  const stack =
    typeof err === 'object' && err !== null && typeof (err as { stack?: unknown }).stack === 'string'
      ? `\n${(err as { stack: string }).stack}`
      : '';
  return `${label} ${msg}${where}${stack}`;
}
