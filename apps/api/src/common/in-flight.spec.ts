import { InFlight } from './in-flight';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('shares one computation among concurrent calls of a key, and starts anew after it ends', async () => {
    const inFlight = new InFlight<number>();
    const pending = deferred<number>();
    let computed = 0;
    const compute = () => {
      computed += 1;
      return pending.promise;
    };
    const first = inFlight.run('a', compute);
    const second = inFlight.run('a', compute);
    const other = inFlight.run('b', () => Promise.resolve(7));
    pending.resolve(42);
    expect(await Promise.all([first, second, other])).toEqual([42, 42, 7]);
    expect(computed).toBe(1);
    expect(await inFlight.run('a', () => Promise.resolve(43))).toBe(43);
  });

  it('gives every joined caller the error, and keeps no failed computation', async () => {
    const inFlight = new InFlight<number>();
    const pending = deferred<number>();
    const calls = [inFlight.run('a', () => pending.promise), inFlight.run('a', () => Promise.resolve(1))];
    pending.reject(new Error('database away'));
    for (const call of calls) await expect(call).rejects.toThrow('database away');
    expect(await inFlight.run('a', () => Promise.resolve(2))).toBe(2);
  });
});
