import type { StepWork } from './latency-model';

/** How a step is composed, as a serving engine is configured (vLLM's names in the comments). */
export interface SchedulerOptions {
  /** Sequences in the running batch at once (max_num_seqs); the rest wait. */
  maxBatch: number;
  /** Prefill shares steps with decodes, up to chunkSize prompt tokens per step (enable_chunked_prefill). */
  chunkedPrefill: boolean;
  chunkSize: number;
  /** Without chunked prefill: whole prompts prefilled per step up to this many tokens (at least one). */
  maxPrefillTokens: number;
}

/** What a sequence needs from whoever submitted it: its lengths. */
export interface SequenceLengths {
  promptTokens: number;
  /** Output tokens this sequence will produce (its EOS or max_tokens, decided up front). */
  outputTokens: number;
}

export class Sequence<R extends SequenceLengths = SequenceLengths> {
  /** A prompt of 0 tokens still needs one forward pass to produce the first token. */
  readonly prefillWork: number;
  prefilled = 0;
  generated = 0;
  cancelled = false;

  constructor(readonly request: R) {
    this.prefillWork = Math.max(1, request.promptTokens);
  }

  get done(): boolean {
    return this.cancelled || this.generated >= this.request.outputTokens;
  }
}

/**
 * The continuous-batching scheduler, with no clock: at each step boundary it admits waiting sequences
 * up to maxBatch and composes the next step (a prefill step, a decode step, or with chunked prefill a
 * mixed one); when the step ends, its emitters each produce one token. The real-time Engine and the
 * virtual-time replay (replay.ts) both drive this one class, so the simulator's ground truth about its
 * own capacity comes from the very model it serves with.
 */
export class BatchScheduler<R extends SequenceLengths = SequenceLengths> {
  private running: Sequence<R>[] = [];
  private waiting: Sequence<R>[] = [];
  private waitingHead = 0;
  private emitters: Sequence<R>[] = [];

  constructor(private options: SchedulerOptions) {}

  reconfigure(change: Partial<SchedulerOptions>): void {
    this.options = { ...this.options, ...change };
  }

  enqueue(sequence: Sequence<R>): void {
    this.waiting.push(sequence);
  }

  get runningCount(): number {
    return this.running.length;
  }

  get waitingCount(): number {
    return this.waiting.length - this.waitingHead;
  }

  /** Admits what fits and composes the next step; null when there is nothing to run. */
  nextStep(): StepWork | null {
    this.admit();
    if (this.running.length === 0) return null;
    return this.options.chunkedPrefill ? this.composeChunked() : this.composeWholePrefill();
  }

  /**
   * The step ended: the sequences that produce a token in it (cancelled ones included: the caller
   * skips them). Call dropFinished() after counting their tokens.
   */
  takeEmitters(): Sequence<R>[] {
    const emitters = this.emitters;
    this.emitters = [];
    return emitters;
  }

  dropFinished(): void {
    this.running = this.running.filter((s) => !s.done);
  }

  /** Cancels everything in flight (the engine closed). */
  clear(): void {
    for (const s of this.running) s.cancelled = true;
    this.running = [];
    this.waiting = [];
    this.waitingHead = 0;
    this.emitters = [];
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
    const emitters: Sequence<R>[] = [];
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
    const emitters: Sequence<R>[] = [];
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
