import { stepTimeS, type Deployment, type StepWork } from './latency-model';
import { lognormalFactor, type Random } from './rng';
import { StepTimer } from './step-timer';

export interface EngineOptions {
  deployment: Deployment;
  /** Sequences in the running batch at once (vLLM's max_num_seqs); the rest queue. */
  maxBatch: number;
  chunkedPrefill: boolean;
  /** With chunked prefill: prompt tokens prefilled per step, mixed with that step's decodes. */
  chunkSize: number;
  /** Without chunked prefill: whole prompts prefilled per step up to this many tokens (at least one). */
  maxPrefillTokens: number;
  /** Sigma of the multiplicative lognormal jitter on every step's duration. */
  jitter: number;
  random: Random;
  /** The timer spins (setImmediate) for the last spinNs before a step ends. */
  spinNs: bigint;
  /** When the loop falls this far behind its schedule it restarts the schedule from now. */
  maxLagNs: bigint;
}

/** Called at the end of the step that produced a sequence's next token. */
export type TokenSink = (generated: number, scheduledNs: bigint, finished: boolean) => void;

export interface SequenceRequest {
  promptTokens: number;
  /** Output tokens this sequence will produce (its EOS or max_tokens, decided up front). */
  outputTokens: number;
  onToken: TokenSink;
}

export interface SequenceHandle {
  cancel(): void;
}

class Sequence {
  /** A prompt of 0 tokens still needs one forward pass to produce the first token. */
  readonly prefillWork: number;
  prefilled = 0;
  generated = 0;
  cancelled = false;

  constructor(readonly request: SequenceRequest) {
    this.prefillWork = Math.max(1, request.promptTokens);
  }

  get done(): boolean {
    return this.cancelled || this.generated >= this.request.outputTokens;
  }
}

export interface LatenessSummary {
  count: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export interface EngineStats {
  steps: number;
  running: number;
  waiting: number;
  /** Times the loop was more than maxLagNs late and restarted its schedule from now. */
  rebases: number;
  /** How late each step's timer fired after the step's scheduled end (last 65,536 steps). */
  fireLateness: LatenessSummary;
  /** How late the last token write of each step finished after its scheduled end. */
  lastWriteLateness: LatenessSummary;
}

const RING = 65_536;

/**
 * One continuous-batching loop, as a serving engine runs it. Each step's end is an absolute instant
 * of the monotonic clock (the previous step's end + this step's modelled duration), so timer lateness
 * never accumulates into drift. At every boundary: deliver the step's tokens, admit queued sequences
 * up to maxBatch, compose the next step (a prefill step, a decode step, or with chunked prefill a
 * mixed one), and arm the timer for its end.
 */
export class Engine {
  private running: Sequence[] = [];
  private waiting: Sequence[] = [];
  private waitingHead = 0;
  private emitters: Sequence[] = [];
  private stepEndNs: bigint | null = null;
  private readonly timer: StepTimer;
  private steps = 0;
  private rebases = 0;
  private readonly fireLateNs = new Float64Array(RING);
  private readonly lastWriteLateNs = new Float64Array(RING);
  private closed = false;

  constructor(private options: EngineOptions) {
    this.timer = new StepTimer(options.spinNs);
  }

  submit(request: SequenceRequest): SequenceHandle {
    const sequence = new Sequence(request);
    if (this.closed) {
      sequence.cancelled = true;
      return { cancel: () => undefined };
    }
    this.waiting.push(sequence);
    if (this.stepEndNs === null) this.startStep(process.hrtime.bigint());
    return { cancel: () => this.cancel(sequence) };
  }

  /**
   * Serves with another deployment (and prefill policy) from the next step on, as a restarted
   * engine would; sequences in flight carry on under the new step times.
   */
  reconfigure(change: Pick<EngineOptions, 'deployment' | 'chunkedPrefill'>): void {
    this.options = { ...this.options, ...change };
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    for (const s of this.running) s.cancelled = true;
    this.running = [];
    this.waiting = [];
    this.waitingHead = 0;
    this.stepEndNs = null;
  }

  stats(): EngineStats {
    const recorded = Math.min(this.steps, RING);
    return {
      steps: this.steps,
      running: this.running.length,
      waiting: this.waiting.length - this.waitingHead,
      rebases: this.rebases,
      fireLateness: summarize(this.fireLateNs.subarray(0, recorded)),
      lastWriteLateness: summarize(this.lastWriteLateNs.subarray(0, recorded)),
    };
  }

  private cancel(sequence: Sequence): void {
    sequence.cancelled = true;
  }

  private readonly onStepEnd = (): void => {
    const end = this.stepEndNs;
    if (end === null) return;
    const firedNs = process.hrtime.bigint();
    const emitters = this.emitters;
    this.emitters = [];
    for (const sequence of emitters) {
      if (sequence.cancelled) continue;
      sequence.generated++;
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
    this.fireLateNs[slot] = Number(firedNs - end);
    this.lastWriteLateNs[slot] = Number(deliveredNs - end);
    if (this.closed) return;
    this.running = this.running.filter((s) => !s.done);
    let nextStart = end;
    if (deliveredNs - end > this.options.maxLagNs) {
      this.rebases++;
      nextStart = deliveredNs;
    }
    this.startStep(nextStart);
  };

  private startStep(startNs: bigint): void {
    this.admit();
    if (this.running.length === 0) {
      this.stepEndNs = null;
      return;
    }
    const work = this.options.chunkedPrefill ? this.composeChunked() : this.composeWholePrefill();
    const seconds =
      stepTimeS(this.options.deployment, work) * lognormalFactor(this.options.random, this.options.jitter);
    this.stepEndNs = startNs + BigInt(Math.round(seconds * 1e9));
    this.timer.at(this.stepEndNs, this.onStepEnd);
  }

  private admit(): void {
    while (this.waitingHead < this.waiting.length && this.running.length < this.options.maxBatch) {
      const sequence = this.waiting[this.waitingHead++];
      if (!sequence.cancelled) this.running.push(sequence);
    }
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingHead);
      this.waitingHead = 0;
    }
  }

  /** Without chunked prefill, waiting prompts are prefilled in a step of their own: running streams stall. */
  private composeWholePrefill(): StepWork {
    let prefillTokens = 0;
    const emitters: Sequence[] = [];
    for (const s of this.running) {
      if (s.prefilled >= s.prefillWork) continue;
      const need = s.prefillWork - s.prefilled;
      if (emitters.length > 0 && prefillTokens + need > this.options.maxPrefillTokens) break;
      prefillTokens += need;
      s.prefilled = s.prefillWork;
      emitters.push(s);
    }
    if (emitters.length > 0) {
      this.emitters = emitters;
      return { decodeTokens: 0, prefillTokens, kvTokensRead: 0 };
    }
    let kvTokensRead = 0;
    for (const s of this.running) kvTokensRead += s.request.promptTokens + s.generated;
    this.emitters = this.running;
    return { decodeTokens: this.running.length, prefillTokens: 0, kvTokensRead };
  }

  /** With chunked prefill, every step decodes all running streams and prefills up to chunkSize prompt tokens. */
  private composeChunked(): StepWork {
    let budget = this.options.chunkSize;
    let prefillTokens = 0;
    let decodeTokens = 0;
    let kvTokensRead = 0;
    const emitters: Sequence[] = [];
    for (const s of this.running) {
      if (s.prefilled >= s.prefillWork) {
        decodeTokens++;
        kvTokensRead += s.request.promptTokens + s.generated;
        emitters.push(s);
      } else if (budget > 0) {
        const take = Math.min(budget, s.prefillWork - s.prefilled);
        kvTokensRead += s.prefilled;
        s.prefilled += take;
        budget -= take;
        prefillTokens += take;
        if (s.prefilled >= s.prefillWork) emitters.push(s);
      }
    }
    this.emitters = emitters;
    return { decodeTokens, prefillTokens, kvTokensRead };
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
