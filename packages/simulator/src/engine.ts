import { stepTimeS, type Deployment, type StepWork } from './latency-model';
import { lognormalFactor, type Random } from './rng';
import {
  BatchScheduler,
  Sequence,
  type SchedulerCounters,
  type SchedulerOptions,
  type SequenceLengths,
} from './scheduler';
import { StepTimer } from './step-timer';

export interface EngineOptions extends SchedulerOptions {
  deployment: Deployment;
  /** Sigma of the multiplicative lognormal jitter on every step's duration. */
  jitter: number;
  random: Random;
  /** The timer spins (setImmediate) for the last spinNs before a step ends. */
  spinNs: bigint;
  /** When the loop falls this far behind its schedule it restarts the schedule from now. */
  maxLagNs: bigint;
  /** Draws speculative decoding's acceptances. */
  acceptanceRandom: Random;
}

/** Called at the end of the step that produced a sequence's next token. */
export type TokenSink = (generated: number, scheduledNs: bigint, finished: boolean) => void;

export interface SequenceRequest extends SequenceLengths {
  onToken: TokenSink;
}

export interface SequenceHandle {
  cancel(): void;
}

export interface LatenessSummary {
  count: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

/** What /metrics reads at every scrape: cheap, no sorting. */
export interface EngineState {
  running: number;
  waiting: number;
  /** Share of the KV cache's blocks in use (vLLM's kv_cache_usage_perc, 0 to 1). */
  kvCacheUsage: number;
  /** Every counter since start: preemptions, prefix-cache queries and hits, drafts, tokens. */
  counters: SchedulerCounters;
}

export interface EngineStats extends EngineState {
  steps: number;
  /** Running sequences preempted since start (recomputed later; vLLM's num_preemptions). */
  preemptions: number;
  /** Times the loop was more than maxLagNs late and restarted its schedule from now. */
  rebases: number;
  /** How late each step's timer fired after the step's scheduled end (last 65,536 steps). */
  fireLateness: LatenessSummary;
  /** How late the last token write of each step finished after its scheduled end. */
  lastWriteLateness: LatenessSummary;
}

const RING = 65_536;

/** One engine step as it ran: when it ended and what it did (the ground truth of which steps prefilled). */
export interface StepRecord {
  startNs: bigint;
  endNs: bigint;
  /** Target positions decoded (decoding sequences, k + 1 each with speculative decoding). */
  decodeTokens: number;
  prefillTokens: number;
  /** Draft passes of the draft model (k with speculative decoding, else 0). */
  draftPasses: number;
}

/**
 * One continuous-batching loop, as a serving engine runs it. Each step's end is an absolute instant
 * of the monotonic clock (the previous step's end + this step's modelled duration), so timer lateness
 * never accumulates into drift. At every boundary: deliver the step's tokens, admit queued sequences
 * up to maxBatch, compose the next step (a prefill step, a decode step, or with chunked prefill a
 * mixed one), and arm the timer for its end.
 */
export class Engine {
  private readonly scheduler: BatchScheduler<SequenceRequest>;
  private stepEndNs: bigint | null = null;
  private readonly timer: StepTimer;
  private steps = 0;
  private rebases = 0;
  private readonly fireLateNs = new Float64Array(RING);
  private readonly lastWriteLateNs = new Float64Array(RING);
  /** The last RING steps: start and end (ns since stepEpochNs), decode, prefill and draft work. */
  private readonly stepLog = new Float64Array(RING * 5);
  private readonly stepEpochNs = process.hrtime.bigint();
  private stepStartNs = 0n;
  private stepWork: StepWork = { decodeTokens: 0, prefillTokens: 0, kvTokensRead: 0 };
  private closed = false;

  constructor(private options: EngineOptions) {
    this.timer = new StepTimer(options.spinNs);
    this.scheduler = new BatchScheduler(options, options.acceptanceRandom);
  }

  submit(request: SequenceRequest): SequenceHandle {
    const sequence = new Sequence(request);
    if (this.closed) {
      sequence.cancelled = true;
      return { cancel: () => undefined };
    }
    this.scheduler.enqueue(sequence);
    if (this.stepEndNs === null) this.startStep(process.hrtime.bigint());
    return { cancel: () => this.cancel(sequence) };
  }

  /**
   * Serves with another deployment (and prefill policy) from the next step on, as a restarted
   * engine would; sequences in flight carry on under the new step times.
   */
  reconfigure(change: Pick<EngineOptions, 'deployment'> & Partial<SchedulerOptions>): void {
    const { deployment, ...scheduling } = change;
    this.options = { ...this.options, ...scheduling, deployment };
    this.scheduler.reconfigure(scheduling);
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.scheduler.clear();
    this.stepEndNs = null;
  }

  state(): EngineState {
    const counters = this.scheduler.counters;
    return {
      running: this.scheduler.runningCount,
      waiting: this.scheduler.waitingCount,
      kvCacheUsage: this.scheduler.kvCacheUsage,
      counters: { ...counters, specDecodeAcceptedPerPosition: [...counters.specDecodeAcceptedPerPosition] },
    };
  }

  stats(): EngineStats {
    const recorded = Math.min(this.steps, RING);
    return {
      steps: this.steps,
      ...this.state(),
      preemptions: this.scheduler.preemptions,
      rebases: this.rebases,
      fireLateness: summarize(this.fireLateNs.subarray(0, recorded)),
      lastWriteLateness: summarize(this.lastWriteLateNs.subarray(0, recorded)),
    };
  }

  /** The steps that ended since `sinceNs` (of the last 65,536), oldest first. */
  stepHistory(sinceNs = 0n): StepRecord[] {
    const records: StepRecord[] = [];
    for (let i = Math.max(0, this.steps - RING); i < this.steps; i++) {
      const at = (i % RING) * 5;
      const endNs = this.stepEpochNs + BigInt(this.stepLog[at + 1]);
      if (endNs <= sinceNs) continue;
      records.push({
        startNs: this.stepEpochNs + BigInt(this.stepLog[at]),
        endNs,
        decodeTokens: this.stepLog[at + 2],
        prefillTokens: this.stepLog[at + 3],
        draftPasses: this.stepLog[at + 4],
      });
    }
    return records;
  }

  private cancel(sequence: Sequence<SequenceRequest>): void {
    sequence.cancelled = true;
  }

  private readonly onStepEnd = (): void => {
    const end = this.stepEndNs;
    if (end === null) return;
    const firedNs = process.hrtime.bigint();
    for (const sequence of this.scheduler.takeEmitters()) {
      try {
        sequence.request.onToken(
          sequence.generated,
          end,
          sequence.generated >= sequence.request.outputTokens,
        );
      } catch {
        sequence.cancelled = true;
      }
    }
    const deliveredNs = process.hrtime.bigint();
    const slot = this.steps++ % RING;
    this.stepLog[slot * 5] = Number(this.stepStartNs - this.stepEpochNs);
    this.stepLog[slot * 5 + 1] = Number(end - this.stepEpochNs);
    this.stepLog[slot * 5 + 2] = this.stepWork.decodeTokens;
    this.stepLog[slot * 5 + 3] = this.stepWork.prefillTokens;
    this.stepLog[slot * 5 + 4] = this.stepWork.draftPasses ?? 0;
    this.fireLateNs[slot] = Number(firedNs - end);
    this.lastWriteLateNs[slot] = Number(deliveredNs - end);
    if (this.closed) return;
    this.scheduler.dropFinished();
    let nextStart = end;
    if (deliveredNs - end > this.options.maxLagNs) {
      this.rebases++;
      nextStart = deliveredNs;
    }
    this.startStep(nextStart);
  };

  private startStep(startNs: bigint): void {
    const work = this.scheduler.nextStep();
    if (work === null) {
      this.stepEndNs = null;
      return;
    }
    this.stepWork = work;
    this.stepStartNs = startNs;
    const seconds =
      stepTimeS(this.options.deployment, work) * lognormalFactor(this.options.random, this.options.jitter);
    this.stepEndNs = startNs + BigInt(Math.round(seconds * 1e9));
    this.timer.at(this.stepEndNs, this.onStepEnd);
  }
}

function summarize(valuesNs: Float64Array): LatenessSummary {
  if (valuesNs.length === 0) return { count: 0, meanUs: 0, p50Us: 0, p99Us: 0, maxUs: 0 };
  const sorted = Float64Array.from(valuesNs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const at = (q: number): number => {
    const h = (sorted.length - 1) * q;
    const lo = Math.floor(h);
    const hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  };
  return {
    count: sorted.length,
    meanUs: sum / sorted.length / 1e3,
    p50Us: at(0.5) / 1e3,
    p99Us: at(0.99) / 1e3,
    maxUs: sorted[sorted.length - 1] / 1e3,
  };
}
