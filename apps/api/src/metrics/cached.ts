/**
 * A value loaded at most once per `ttlMs`: callers within that time get the stored value, and
 * callers while a load is under way share it, so a burst of scrapes costs one query.
 */
export class Cached<T> {
  private value: { loadedAt: number; value: T } | null = null;
  private loading: Promise<T> | null = null;

  constructor(
    private readonly ttlMs: number,
    private readonly load: () => Promise<T>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): Promise<T> {
    if (this.value && this.now() - this.value.loadedAt < this.ttlMs) return Promise.resolve(this.value.value);
    this.loading ??= this.load().then(
      (value) => {
        this.value = { loadedAt: this.now(), value };
        this.loading = null;
        return value;
      },
      (error: unknown) => {
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}
