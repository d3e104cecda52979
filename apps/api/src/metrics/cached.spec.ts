import { Cached } from './cached';

describe('Cached', () => {
  it('loads once per ttl, and concurrent callers share one load', async () => {
    let now = 0;
    let loads = 0;
    let release: () => void = () => {};
    const cached = new Cached(
      5_000,
      () => {
        loads++;
        return new Promise<number>((resolve) => (release = () => resolve(loads)));
      },
      () => now,
    );
    const first = cached.get();
    const second = cached.get();
    release();
    expect(await first).toBe(1);
    expect(await second).toBe(1);
    now = 4_999;
    expect(await cached.get()).toBe(1);
    now = 5_000;
    const third = cached.get();
    release();
    expect(await third).toBe(2);
    expect(loads).toBe(2);
  });

  it('keeps no failed load: the next caller loads again', async () => {
    let fail = true;
    const cached = new Cached(
      5_000,
      async () => {
        if (fail) throw new Error('database away');
        return 'ok';
      },
      () => 0,
    );
    await expect(cached.get()).rejects.toThrow('database away');
    fail = false;
    expect(await cached.get()).toBe('ok');
  });
});
