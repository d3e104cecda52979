/**
 * Concurrent calls with the same key share one computation: the first starts it, the others that
 * arrive before it ends get its result (or its error), and the next call after it ends starts anew.
 * Nothing is kept: an answer is never older than the computation a caller joined.
 */
export class InFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, compute: () => Promise<T>): Promise<T> {
    const joined = this.running.get(key);
    if (joined) return joined;
    const started = compute().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
