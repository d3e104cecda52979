import { StackChild, type ChildExit, type ChildSpec, type Output } from './children';

/** A failure the launcher explains in words; printed without a stack trace. */
export class StackError extends Error {
  override readonly name = 'StackError';
}

/** Ctrl-C (or SIGTERM) arrived while the launcher was waiting for something. */
export class StackInterrupted extends Error {
  override readonly name = 'StackInterrupted';
}

/** On SIGTERM the worker finishes or aborts its run within SHUTDOWN_GRACE_MS; this leaves it room to store it. */
export const WORKER_STOP_GRACE_MS = 20_000;
const SERVICE_STOP_GRACE_MS = 10_000;
const OTHER_CHILDREN_LINES = 8;

/**
 * The children of one launcher run. Every wait races against a child exiting, Ctrl-C and a deadline,
 * so the launcher never hangs on a service that died; stop() ends them worker first.
 */
export class StackSession {
  private readonly children: StackChild[] = [];
  private stopping = false;
  private readonly killOnExit = () => {
    for (const child of this.children) child.kill();
  };

  constructor(
    private readonly output: Output,
    private readonly verbose: boolean,
    private readonly signal?: AbortSignal,
  ) {
    // Children live in their own process groups: if the launcher dies, nothing else would stop them.
    process.on('exit', this.killOnExit);
  }

  get pids(): number[] {
    return this.children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
  }

  start(spec: ChildSpec): StackChild {
    const child = new StackChild(spec, this.output, this.verbose);
    this.children.push(child);
    return child;
  }

  /**
   * `work`, unless a child exits, Ctrl-C arrives or `timeoutMs` passes first. The signal given to
   * `work` is aborted once the guard settles, so polling loops end with it.
   */
  async guard<T>(what: string, work: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
    const settled = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const interrupted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new StackInterrupted(`interrupted while ${what}`));
      if (this.signal?.aborted) onAbort();
      else this.signal?.addEventListener('abort', onAbort, { once: true });
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StackError(
              `${what} did not finish within ${Math.round(timeoutMs / 1000)} s.\n${this.recentLogs()}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([work(settled.signal), interrupted, timedOut, this.anyExit(what)]);
    } finally {
      settled.abort();
      clearTimeout(timer);
      if (onAbort) this.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Resolves when Ctrl-C arrives; rejects when a child stops on its own first. */
  async serveUntilInterrupted(): Promise<void> {
    try {
      await this.guard('serving', () => new Promise<never>(() => undefined), 2 ** 31 - 1);
    } catch (error) {
      if (!(error instanceof StackInterrupted)) throw error;
    }
  }

  /** Stops the named children (SIGTERM, then SIGKILL after their grace) and leaves the others running. */
  async stopNamed(names: readonly string[]): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.children.filter((child) => names.includes(child.name)).map((child) => child.stop(graceOf(child))),
    );
  }

  /** Worker first, so it stops taking jobs and stores its run while the endpoints still answer. */
  async stop(): Promise<void> {
    this.stopping = true;
    const workers = this.children.filter((child) => child.name.startsWith('worker'));
    const others = this.children.filter((child) => !child.name.startsWith('worker'));
    await Promise.all(workers.map((child) => child.stop(graceOf(child))));
    await Promise.all(others.map((child) => child.stop(graceOf(child))));
    process.off('exit', this.killOnExit);
  }

  /** The last lines of every child (only a few of the others' when `culprit` is named), for a message about something that went wrong. */
  recentLogs(culprit?: StackChild): string {
    return this.children
      .map((child) => {
        const lines = child.recentLines(!culprit || child === culprit ? undefined : OTHER_CHILDREN_LINES);
        const shown =
          lines.length > 0 ? lines.map((line) => `  [${child.name}] ${line}`).join('\n') : '  (no output)';
        return `Last lines of the ${child.name}:\n${shown}`;
      })
      .join('\n');
  }

  private anyExit(what: string): Promise<never> {
    return new Promise<never>((_, reject) => {
      for (const child of this.children) {
        void child.exited.then((exit) => {
          if (!this.stopping)
            reject(
              new StackError(
                `The ${child.name} stopped ${describeExit(exit)} while ${what}.\n${this.recentLogs(child)}`,
              ),
            );
        });
      }
    });
  }
}

function graceOf(child: StackChild): number {
  return child.name.startsWith('worker') ? WORKER_STOP_GRACE_MS : SERVICE_STOP_GRACE_MS;
}

function describeExit({ code, signal }: ChildExit): string {
  if (signal) return `on ${signal}`;
  return code === null ? 'before it started' : `with exit code ${code}`;
}
