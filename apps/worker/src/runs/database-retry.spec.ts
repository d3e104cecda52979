import { FIRST_DELAY_MS, MAX_DELAY_MS, retryWhileDatabaseIsAway } from './database-retry';

const unreachable = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A clock that moves only when the code under test sleeps. */
function fakeTime() {
  const time = { nowMs: 0, sleeps: [] as number[] };
  return {
    time,
    now: () => time.nowMs,
    sleep: async (ms: number) => {
      time.sleeps.push(ms);
      time.nowMs += ms;
    },
  };
}

describe('retryWhileDatabaseIsAway (fake clock)', () => {
  it('retries a transient failure with doubling waits capped at 10 s, then returns the value', async () => {
    const { time, now, sleep } = fakeTime();
    let calls = 0;
    const result = await retryWhileDatabaseIsAway(
      async () => {
        if (++calls <= 8) throw unreachable();
        return 'stored';
      },
      { giveUpAfterMs: 60_000, now, sleep },
    );
    expect(result).toEqual({ value: 'stored', failures: 8 });
    expect(time.sleeps).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, MAX_DELAY_MS, MAX_DELAY_MS]);
  });

  it('gives up with the last error once the next wait would pass the limit', async () => {
    const { time, now, sleep } = fakeTime();
    const retries: number[] = [];
    await expect(
      retryWhileDatabaseIsAway(
        async () => {
          throw unreachable();
        },
        { giveUpAfterMs: 2_000, now, sleep, onRetry: (_error, failures) => retries.push(failures) },
      ),
    ).rejects.toThrow('ECONNREFUSED');
    // 250 + 500 + 1000 = 1750 waited; the next wait (2000) would end at 3750 > 2000.
    expect(time.sleeps).toEqual([FIRST_DELAY_MS, 500, 1_000]);
    expect(retries).toEqual([1, 2, 3]);
  });

  it('never retries a permanent error or pool exhaustion', async () => {
    for (const error of [
      new Error('column "x" does not exist'),
      Object.assign(new Error('Timed out fetching a new connection'), { code: 'P2024' }),
    ]) {
      const { time, now, sleep } = fakeTime();
      let calls = 0;
      await expect(
        retryWhileDatabaseIsAway(
          async () => {
            calls++;
            throw error;
          },
          { giveUpAfterMs: 60_000, now, sleep },
        ),
      ).rejects.toBe(error);
      expect(calls).toBe(1);
      expect(time.sleeps).toEqual([]);
    }
  });

  it('with no time to wait (shutdown, PERSIST_RETRY_MAX_MS=0) tries once', async () => {
    const { now, sleep } = fakeTime();
    let calls = 0;
    await expect(
      retryWhileDatabaseIsAway(
        async () => {
          calls++;
          throw unreachable();
        },
        { giveUpAfterMs: 0, now, sleep },
      ),
    ).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(1);
  });
});
