import { arrivalSchedule } from './arrivals';
import { deriveSeed } from './random';
import type { RunTokenizer } from './run-tokenizer';
import type { RunOptions, Workload } from './types';
import { tracePrompts, type PromptSpec } from './workload';

/** An arrival this close to its send time goes now: a turn of the event loop takes about as long. */
const EARLY_SEND_TOLERANCE_US = 20;
/**
 * The last stretch before a send is waited in event-loop turns (setImmediate), not on a timer: a timer
 * of N ms fires between N and N + 1 ms later (libuv keeps the loop's time in whole ms), so a timer may
 * only end a sleep that leaves at least 1 ms to spare. With 1 ms of turns, timers that ran long made
 * sends late (P99 0.53 ms on an idle machine); with 2 ms, P99 0.04-0.06 ms. It costs at most this much
 * CPU per arrival, and the turns still read every socket (the poll phase runs in each).
 */
const TURNS_BEFORE_SEND_US = 2_000;

/** The next check phase; `polled` is told first, right after the poll phase (see ArrivalInbox.polled). */
function nextTurn(polled: () => void): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      polled();
      resolve();
    }),
  );
}

/** An open loop's arrivals: send times (us from the load phase's start) and, for a trace, each one's prompt. */
export interface OpenSchedule {
  timesUs: Float64Array;
  /** Arrival i's prompt (a trace's lengths, or the run's next); null: each request draws its own when sent (sessions). */
  promptAt: ((i: number) => PromptSpec) | null;
}

/**
 * The arrivals of an open-loop run: a trace's own times divided by its speed, else drawn from the
 * load's arrival process; either way cut at `requests` and at `durationS`.
 */
export function openSchedule(options: RunOptions, tokenizer: RunTokenizer | null): OpenSchedule {
  const { load, workload, requests: count, durationS } = options;
  const seed = options.seed ?? 0;
  if (workload.kind === 'trace') {
    const speed = workload.speed ?? 1;
    const limitUs = durationS === undefined ? Infinity : durationS * 1e6;
    const n = Math.min(count ?? Infinity, workload.requests.length);
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const atUs = (workload.requests[i].atMs * 1000) / speed;
      if (atUs >= limitUs) break;
      times.push(atUs);
    }
    return {
      timesUs: Float64Array.from(times),
      promptAt: tracePrompts(workload, seed, tokenizer ?? undefined),
    };
  }
  if (load.kind !== 'open') throw new TypeError('a closed loop has no arrival schedule');
  const { ratePerS, arrival, burstiness } = load;
  const timesUs = arrivalSchedule({
    ratePerS,
    arrival,
    burstiness,
    seed: deriveSeed(seed, 2),
    count,
    durationS,
  });
  return { timesUs, promptAt: null };
}

/** A trace's mean arrival rate as replayed (after its speed), per second. */
export function traceRatePerS(workload: Extract<Workload, { kind: 'trace' }>): number {
  const { requests } = workload;
  const spanS = requests[requests.length - 1].atMs / 1000 / (workload.speed ?? 1);
  return spanS > 0 ? requests.length / spanS : requests.length;
}

/** The mean arrival rate of an open-loop run, per second: how many connections are worth opening ahead. */
export function openRatePerS(options: RunOptions): number {
  const { load, workload } = options;
  if (workload.kind === 'trace') return traceRatePerS(workload);
  return load.kind === 'open' ? load.ratePerS : 0;
}

export interface OpenLoopHost {
  /** The run stopped, or has issued all it may. */
  done(): boolean;
  nowUs(): number;
  /** Requests in flight now. */
  active(): number;
  /** Waits `ms`, or (null) until a request finishes; wakes early when the run stops. */
  sleep(ms: number | null): Promise<void>;
  /** The next send is due in `inUs` (null: not within the last stretch): parsing yields to it. */
  sendDueIn(inUs: number | null): void;
  /** The loop, spinning, reached a check phase (its poll phase has just read every socket). */
  polled(): void;
  /** Sends (or starts the session of) one arrival; `ended` when it ends or was not sent. */
  start(scheduledUs: number, prompt: PromptSpec | null, ended: () => void): void;
}

/** How the open loop waits: at most this many in flight, and whether it may sleep (see Load.busyPoll). */
export interface OpenLoopWaits {
  maxConcurrency?: number;
  busyPoll?: boolean;
}

/**
 * Sends each arrival at its time from `originUs` (absolute times: a late timer never shifts the ones
 * after it), at most `maxConcurrency` in flight: an arrival that finds no free slot waits for one and
 * keeps its scheduled time, so its wait shows as lateness and in the figures from the schedule. An
 * arrival's prompt is built right after the arrival before it is sent, while the loop waits anyway.
 *
 * With `busyPoll` every wait is event-loop turns, none a sleep: on a virtual machine a thread woken
 * from sleep waited up to 1-2 ms for its idle virtual CPU to run it (perf sched), which made ~3% of
 * sends more than 1 ms late however early the sleep ended.
 */
export async function runOpenLoop(
  schedule: OpenSchedule,
  originUs: number,
  waits: OpenLoopWaits,
  host: OpenLoopHost,
): Promise<void> {
  const { maxConcurrency, busyPoll = false } = waits;
  const { timesUs, promptAt } = schedule;
  const running: Array<Promise<void>> = [];
  let i = 0;
  let prompt = promptAt !== null && timesUs.length > 0 ? promptAt(0) : null;
  while (i < timesUs.length && !host.done()) {
    const dueUs = originUs + timesUs[i];
    const waitUs = dueUs - host.nowUs();
    if (waitUs > TURNS_BEFORE_SEND_US + 1000 && !busyPoll) {
      await host.sleep(Math.floor((waitUs - TURNS_BEFORE_SEND_US) / 1000));
      continue;
    }
    if (waitUs > EARLY_SEND_TOLERANCE_US) {
      host.sendDueIn(waitUs);
      await nextTurn(host.polled);
      continue;
    }
    host.sendDueIn(null);
    if (maxConcurrency !== undefined && host.active() >= maxConcurrency) {
      await (busyPoll ? nextTurn(host.polled) : host.sleep(null));
      continue;
    }
    const given = prompt;
    running.push(new Promise((ended) => host.start(Math.round(dueUs), given, () => ended())));
    i++;
    prompt = promptAt !== null && i < timesUs.length ? promptAt(i) : null;
  }
  await Promise.all(running);
}
