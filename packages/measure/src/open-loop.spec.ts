import { percentile } from '@teapot/run-definitions';
import { runOpenLoop, type OpenLoopHost } from './open-loop';
import { sortedCopy } from './stats';

const ARRIVALS = 60;
/** Arrivals 2.5 ms apart on average, each shifted by up to 2.4 ms: waits of every length under 5 ms. */
const TIMES_US = Float64Array.from({ length: ARRIVALS }, (_, i) => i * 2_500 + ((i * 7919) % 2_400));

const nowUs = () => Number(process.hrtime.bigint()) / 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => percentile(sortedCopy(values), 0.5);

/** How late sends are when each wait is a timer alone (what the open loop did before it waited in turns). */
async function timerOnlyLatenessUs(): Promise<number[]> {
  const origin = nowUs() + 2_000;
  const lateness: number[] = [];
  for (const at of TIMES_US) {
    const due = origin + at;
    for (let wait = due - nowUs(); wait > 200; wait = due - nowUs())
      await sleep(Math.max(1, Math.floor(wait / 1000)));
    lateness.push(nowUs() - due);
  }
  return lateness;
}

async function openLoopLatenessUs(busyPoll = false): Promise<number[]> {
  const lateness: number[] = [];
  const host: OpenLoopHost = {
    done: () => false,
    nowUs,
    active: () => 0,
    sleep: (ms) => sleep(ms ?? 1),
    sendDueIn: () => undefined,
    polled: () => undefined,
    start: (scheduledUs, _prompt, ended) => {
      lateness.push(nowUs() - scheduledUs);
      ended();
    },
  };
  await runOpenLoop({ timesUs: TIMES_US, promptAt: null }, nowUs() + 2_000, { busyPoll }, host);
  return lateness;
}

describe('runOpenLoop keeps its schedule', () => {
  it('sends closer to the schedule than waiting on timers alone, measured on this machine now', async () => {
    // alternated so that a busy moment of the machine hits both
    const timer: number[] = [];
    const loop: number[] = [];
    for (let round = 0; round < 2; round++) {
      timer.push(...(await timerOnlyLatenessUs()));
      loop.push(...(await openLoopLatenessUs()));
    }
    expect(loop).toHaveLength(2 * ARRIVALS);
    // a timer fires up to 1 ms after its wait: its median lateness is a few hundred us; turns take tens
    expect(median(loop)).toBeLessThan(median(timer) / 2);
    // and never early by more than the tolerance
    expect(Math.min(...loop)).toBeGreaterThanOrEqual(-25);
  });

  it('busy-polling never sleeps, for a send or for a slot, and keeps the schedule', async () => {
    const lateness: number[] = [];
    let active = 0;
    const sleep = jest.fn(async () => undefined);
    const host: OpenLoopHost = {
      done: () => false,
      nowUs,
      active: () => active,
      sleep,
      sendDueIn: () => undefined,
      polled: () => undefined,
      start: (scheduledUs, _prompt, ended) => {
        lateness.push(nowUs() - scheduledUs);
        active++;
        setTimeout(() => {
          active--;
          ended();
        }, 3);
      },
    };
    await runOpenLoop(
      { timesUs: TIMES_US, promptAt: null },
      nowUs() + 2_000,
      { maxConcurrency: 1, busyPoll: true },
      host,
    );
    expect(sleep).not.toHaveBeenCalled();
    expect(lateness).toHaveLength(ARRIVALS);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(-25);
  });

  it('keeps the time of an arrival that waited for a free slot', async () => {
    const scheduled: number[] = [];
    let active = 0;
    const origin = Math.round(nowUs());
    const host: OpenLoopHost = {
      done: () => false,
      nowUs,
      active: () => active,
      sleep: (ms) => sleep(ms ?? 1),
      sendDueIn: () => undefined,
      polled: () => undefined,
      start: (scheduledUs, _prompt, ended) => {
        scheduled.push(scheduledUs);
        active++;
        setTimeout(() => {
          active--;
          ended();
        }, 10);
      },
    };
    await runOpenLoop(
      { timesUs: Float64Array.from([0, 1_000, 2_000]), promptAt: null },
      origin,
      { maxConcurrency: 1 },
      host,
    );
    expect(scheduled.map((us) => us - origin)).toEqual([0, 1_000, 2_000]);
  });
});
