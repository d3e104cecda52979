import { exponentialSample, gammaSample, mulberry32, type Random } from '@teapot/random';
import type { Load } from '@teapot/run-definitions';
import { stepTimeS, type Deployment } from './latency-model';
import { deriveSeed, lognormalFactor } from './rng';
import { BatchScheduler, Sequence, type SchedulerCounters, type SchedulerOptions } from './scheduler';

export interface ReplayOptions {
  deployment: Deployment;
  scheduler: SchedulerOptions;
  /** Sigma of the lognormal jitter on every step, as the live engine draws it. */
  jitter: number;
  seed: number;
  /** Fixed lengths, as a benchmark that forces its output length sends. */
  workload: { inputTokens: number; outputTokens: number };
  load: Load;
  requests: number;
}

export interface ReplayedRequest {
  /** When it reached the engine, seconds of model time from the first arrival. */
  arrivalS: number;
  /** The end of the step that produced each output token. */
  tokenTimesS: Float64Array;
}

export interface ReplayResult {
  requests: ReplayedRequest[];
  steps: number;
  /** The longest the waiting queue got at a step boundary. */
  peakWaiting: number;
  /** Running sequences preempted for want of KV-cache blocks (each recomputed later). */
  preemptions: number;
  /** Everything the scheduler counted (drafts and accepted tokens with speculative decoding). */
  counters: SchedulerCounters;
}

interface Replayed {
  promptTokens: number;
  outputTokens: number;
  index: number;
}

/**
 * A load served in model time, with no timers: the live engine's scheduler (BatchScheduler) and step
 * times (stepTimeS x the same lognormal jitter), arrivals drawn as a benchmark would send them (open
 * loop: exponential, gamma or constant gaps; closed loop: a new request the moment one finishes).
 * What the simulator would answer if the network and the client cost nothing.
 */
export function replayLoad(options: ReplayOptions): ReplayResult {
  const { workload, load } = options;
  if (workload.inputTokens + workload.outputTokens > options.scheduler.kvCacheTokens) {
    throw new RangeError(
      `a request of ${workload.inputTokens} + ${workload.outputTokens} tokens cannot fit a KV cache of ${options.scheduler.kvCacheTokens} tokens`,
    );
  }
  const stepRandom = mulberry32(deriveSeed(options.seed, -10));
  const gapRandom = mulberry32(deriveSeed(options.seed, -11));
  const scheduler = new BatchScheduler<Replayed>(
    options.scheduler,
    mulberry32(deriveSeed(options.seed, -12)),
  );
  const requests: ReplayedRequest[] = [];
  const issue = (at: number): void => {
    const index = requests.length;
    requests.push({ arrivalS: at, tokenTimesS: new Float64Array(workload.outputTokens) });
    scheduler.enqueue(
      new Sequence({ promptTokens: workload.inputTokens, outputTokens: workload.outputTokens, index }),
    );
  };
  const gap = load.kind === 'open' ? gapOf(load, gapRandom) : () => Infinity;
  let t = 0;
  let nextArrival = 0;
  let steps = 0;
  let peakWaiting = 0;
  if (load.kind === 'closed') {
    for (let i = 0; i < Math.min(load.concurrency, options.requests); i++) issue(0);
  }
  for (;;) {
    while (load.kind === 'open' && requests.length < options.requests && nextArrival <= t) {
      issue(nextArrival);
      nextArrival += gap();
    }
    const work = scheduler.nextStep();
    if (work === null) {
      if (load.kind === 'open' && requests.length < options.requests) {
        t = nextArrival;
        continue;
      }
      break;
    }
    peakWaiting = Math.max(peakWaiting, scheduler.waitingCount);
    t += stepTimeS(options.deployment, work) * lognormalFactor(stepRandom, options.jitter);
    steps++;
    for (const s of scheduler.takeEmitters()) {
      requests[s.request.index].tokenTimesS.fill(t, s.generated - s.stepTokens, s.generated);
      if (s.done && load.kind === 'closed' && requests.length < options.requests) issue(t);
    }
    scheduler.dropFinished();
  }
  return { requests, steps, peakWaiting, preemptions: scheduler.preemptions, counters: scheduler.counters };
}

/** Gaps with mean 1 / rate: exponential (poisson), gamma of shape = burstiness, or fixed. */
function gapOf(load: Extract<Load, { kind: 'open' }>, random: Random): () => number {
  const mean = 1 / load.ratePerS;
  if (load.arrival === 'constant') return () => mean;
  if (load.arrival === 'gamma') {
    const shape = load.burstiness ?? 1;
    return () => (gammaSample(random, shape) / shape) * mean;
  }
  return () => exponentialSample(random) * mean;
}
