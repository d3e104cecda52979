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
 * How a child that dies while the stack serves is started again: after `firstDelayMs`, doubled for
 * each further restart in the window up to `maxDelayMs`; at most `maxRestarts` restarts of one child
 * within `windowMs`, after which its next death stops the launcher. A crash-looping child (a bad
 * build, a port taken) gives up within seconds; a worker killed once comes back at once and its run
 * is taken over as after any worker's death (stalled job, reaper).
 */
export const RESTART_POLICY = { firstDelayMs: 1_000, maxDelayMs: 8_000, maxRestarts: 3, windowMs: 60_000 };
export type RestartPolicy = typeof RESTART_POLICY;

/**
 * The children of one launcher run. Every wait races against a child giving up, Ctrl-C and a
 * deadline, so the launcher never hangs on a service that died; stop() ends them worker first.
 * Until `superviseFromNow()` a child that exits fails the launch (a service that cannot boot will not
 * boot on a second try); after it, the child is started again under the restart policy.
 */
export class StackSession {
  /** The live instance of each child, by start order. */
  private readonly children: StackChild[] = [];
  private readonly everStarted: StackChild[] = [];
  private readonly restartTimes = new Map<string, number[]>();
  private readonly pendingRestarts = new Set<NodeJS.Timeout>();
  private readonly giveUpListeners = new Set<(child: StackChild, exit: ChildExit) => void>();
  private gaveUp: { child: StackChild; exit: ChildExit } | null = null;
  private supervising = false;
  private stopping = false;
  private readonly killOnExit = () => {
    for (const child of this.children) child.kill();
  };

  constructor(
    private readonly output: Output,
    private readonly verbose: boolean,
    private readonly signal?: AbortSignal,
    private readonly restartPolicy: RestartPolicy = RESTART_POLICY,
  ) {
    // Children live in their own process groups: if the launcher dies, nothing else would stop them.
    process.on('exit', this.killOnExit);
  }

  /** Every process started, restarts included. */
  get pids(): number[] {
    return this.everStarted.map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
  }

  start(spec: ChildSpec): StackChild {
    const child = this.spawn(spec);
    this.children.push(child);
    return child;
  }

  /** From now on a child that dies is restarted (the stack is up and serving). */
  superviseFromNow(): void {
    this.supervising = true;
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
      const { failed, unsubscribe } = this.childGaveUp(what);
      try {
        return await Promise.race([work(settled.signal), interrupted, timedOut, failed]);
      } finally {
        unsubscribe();
      }
    } finally {
      settled.abort();
      clearTimeout(timer);
      if (onAbort) this.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Resolves when Ctrl-C arrives; rejects when a child stops on its own for good first. */
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
    for (const timer of this.pendingRestarts) clearTimeout(timer);
    this.pendingRestarts.clear();
    await Promise.all(
      this.children.filter((child) => names.includes(child.name)).map((child) => child.stop(graceOf(child))),
    );
  }

  /** Worker first, so it stops taking jobs and stores its run while the endpoints still answer. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.pendingRestarts) clearTimeout(timer);
    this.pendingRestarts.clear();
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

  private spawn(spec: ChildSpec): StackChild {
    const child = new StackChild(spec, this.output, this.verbose);
    this.everStarted.push(child);
    void child.exited.then((exit) => this.onExit(child, exit));
    return child;
  }

  private onExit(child: StackChild, exit: ChildExit): void {
    if (this.stopping) return;
    const { firstDelayMs, maxDelayMs, maxRestarts, windowMs } = this.restartPolicy;
    const now = Date.now();
    const recent = (this.restartTimes.get(child.name) ?? []).filter((at) => now - at < windowMs);
    if (!this.supervising || recent.length >= maxRestarts) {
      this.giveUp(child, exit);
      return;
    }
    recent.push(now);
    this.restartTimes.set(child.name, recent);
    const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** (recent.length - 1));
    this.output.write(
      `the ${child.name} stopped ${describeExit(exit)}; restarting it in ${delayMs / 1000} s ` +
        `(restart ${recent.length} of at most ${maxRestarts} within ${windowMs / 1000} s)\n`,
    );
    const timer = setTimeout(() => {
      this.pendingRestarts.delete(timer);
      if (this.stopping) return;
      this.children[this.children.indexOf(child)] = this.spawn(child.spec);
    }, delayMs);
    this.pendingRestarts.add(timer);
  }

  private giveUp(child: StackChild, exit: ChildExit): void {
    this.gaveUp ??= { child, exit };
    for (const listener of this.giveUpListeners) listener(child, exit);
  }

  /** Rejects once a child stops and is not (or no longer) restarted. */
  private childGaveUp(what: string): { failed: Promise<never>; unsubscribe: () => void } {
    let listener: ((child: StackChild, exit: ChildExit) => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      listener = (child, exit) => {
        const restarts = this.restartTimes.get(child.name)?.length ?? 0;
        const after =
          restarts > 0 ? ` after ${restarts} restart(s) within ${this.restartPolicy.windowMs / 1000} s` : '';
        reject(
          new StackError(
            `The ${child.name} stopped ${describeExit(exit)}${after} while ${what}.\n${this.recentLogs(child)}`,
          ),
        );
      };
      if (this.gaveUp) listener(this.gaveUp.child, this.gaveUp.exit);
      else this.giveUpListeners.add(listener);
    });
    return { failed, unsubscribe: () => listener && this.giveUpListeners.delete(listener) };
  }
}

function graceOf(child: StackChild): number {
  return child.name.startsWith('worker') ? WORKER_STOP_GRACE_MS : SERVICE_STOP_GRACE_MS;
}

function describeExit({ code, signal }: ChildExit): string {
  if (signal) return `on ${signal}`;
  return code === null ? 'before it started' : `with exit code ${code}`;
}
