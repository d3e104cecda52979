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
  /** KV-cache slots, in tokens (num_gpu_blocks x block_size); rounded down to whole blocks. */
  kvCacheTokens: number;
}

/** Tokens per KV-cache block (vLLM's default block_size). */
export const KV_BLOCK_TOKENS = 16;
/** Blocks admission leaves free for running sequences to grow into (vLLM's watermark, 1%). */
const WATERMARK_SHARE = 0.01;

/** What a sequence needs from whoever submitted it: its lengths. */
export interface SequenceLengths {
  promptTokens: number;
  /** Output tokens this sequence will produce (its EOS or max_tokens, decided up front). */
  outputTokens: number;
}

export class Sequence<R extends SequenceLengths = SequenceLengths> {
  /**
   * Tokens to prefill before the next token: the prompt (a prompt of 0 tokens still needs one forward
   * pass), or after a preemption the prompt and every token generated so far (recompute).
   */
  prefillWork: number;
  prefilled = 0;
  generated = 0;
  cancelled = false;
  /** Tokens whose keys and values are in the cache, and the blocks held for them. */
  cachedTokens = 0;
  blocks = 0;

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
  private totalBlocks: number;
  private freeBlocks: number;
  /** Running sequences evicted to make room for others' next tokens (recomputed later). */
  preemptions = 0;

  constructor(private options: SchedulerOptions) {
    this.totalBlocks = Math.floor(options.kvCacheTokens / KV_BLOCK_TOKENS);
    this.freeBlocks = this.totalBlocks;
  }

  /** A new cache size counts from now: blocks held stay held (the free count may go negative until they are freed). */
  reconfigure(change: Partial<SchedulerOptions>): void {
    this.options = { ...this.options, ...change };
    const total = Math.floor(this.options.kvCacheTokens / KV_BLOCK_TOKENS);
    this.freeBlocks += total - this.totalBlocks;
    this.totalBlocks = total;
  }

  /** Share of the KV cache's blocks held by running sequences (vLLM's kv_cache_usage_perc). */
  get kvCacheUsage(): number {
    return this.totalBlocks === 0 ? 0 : (this.totalBlocks - this.freeBlocks) / this.totalBlocks;
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
    let kept = 0;
    for (const s of this.running) {
      if (s.done) this.release(s);
      else this.running[kept++] = s;
    }
    this.running.length = kept;
  }

  /** Cancels everything in flight (the engine closed). */
  clear(): void {
    for (const s of this.running) s.cancelled = true;
    this.running = [];
    this.waiting = [];
    this.waitingHead = 0;
    this.emitters = [];
    this.freeBlocks = this.totalBlocks;
  }

  /**
   * First come, first served, as vLLM admits: the head of the queue needs blocks for all it will
   * prefill, leaving the watermark free; when it does not fit, nobody behind it is admitted either.
   */
  private admit(): void {
    const watermark = Math.floor(this.totalBlocks * WATERMARK_SHARE);
    while (this.waitingHead < this.waiting.length && this.running.length < this.options.maxBatch) {
      const sequence = this.waiting[this.waitingHead];
      if (sequence.cancelled) {
        this.waitingHead++;
        continue;
      }
      const need = blocksFor(sequence.prefillWork);
      if (this.freeBlocks - need < watermark && !(this.running.length === 0 && need <= this.freeBlocks))
        break;
      this.waitingHead++;
      this.freeBlocks -= need;
      sequence.blocks = need;
      this.running.push(sequence);
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
      s.cachedTokens = s.prefillWork;
      emitters.push(s);
    }
    if (emitters.length > 0) {
      this.emitters = emitters;
      return { decodeTokens: 0, prefillTokens, kvTokensRead: 0 };
    }
    this.reserveDecodeSlots();
    let kvTokensRead = 0;
    for (const s of this.running) {
      kvTokensRead += s.request.promptTokens + s.generated;
      s.cachedTokens++;
    }
    this.emitters = this.running.slice();
    return { decodeTokens: this.running.length, prefillTokens: 0, kvTokensRead };
  }

  /** With chunked prefill, every step decodes all running streams and prefills up to chunkSize prompt tokens. */
  private composeChunked(): StepWork {
    this.reserveDecodeSlots();
    let budget = this.options.chunkSize;
    let prefillTokens = 0;
    let decodeTokens = 0;
    let kvTokensRead = 0;
    const emitters: Sequence<R>[] = [];
    for (const s of this.running) {
      if (s.prefilled >= s.prefillWork) {
        decodeTokens++;
        kvTokensRead += s.request.promptTokens + s.generated;
        s.cachedTokens++;
        emitters.push(s);
      } else if (budget > 0) {
        const take = Math.min(budget, s.prefillWork - s.prefilled);
        kvTokensRead += s.prefilled;
        s.prefilled += take;
        s.cachedTokens = s.prefilled;
        budget -= take;
        prefillTokens += take;
        if (s.prefilled >= s.prefillWork) emitters.push(s);
      }
    }
    this.emitters = emitters;
    return { decodeTokens, prefillTokens, kvTokensRead };
  }

  /**
   * Every decoding sequence writes one more token's keys and values this step. When one needs a new
   * block and none is free, the most recently admitted running sequence is preempted (vLLM's
   * recompute): its blocks are freed and it returns to the front of the queue, to prefill its prompt
   * and the tokens it generated again; its stream stalls meanwhile, nothing already sent is resent.
   */
  private reserveDecodeSlots(): void {
    for (let i = 0; i < this.running.length; i++) {
      const s = this.running[i];
      if (s.prefilled < s.prefillWork) continue;
      const need = blocksFor(s.cachedTokens + 1) - s.blocks;
      if (need <= 0) continue;
      while (this.freeBlocks < need && this.running.length - 1 > i) this.preempt(this.running.pop()!);
      if (this.freeBlocks < need) {
        this.running.pop();
        this.preempt(s);
        return;
      }
      this.freeBlocks -= need;
      s.blocks += need;
    }
  }

  private preempt(s: Sequence<R>): void {
    this.preemptions++;
    this.release(s);
    s.prefillWork = Math.max(1, s.request.promptTokens + s.generated);
    s.prefilled = 0;
    if (this.waitingHead > 0) this.waiting[--this.waitingHead] = s;
    else this.waiting.unshift(s);
  }

  private release(s: Sequence<R>): void {
    this.freeBlocks += s.blocks;
    s.blocks = 0;
    s.cachedTokens = 0;
  }
}

function blocksFor(tokens: number): number {
  return Math.ceil(tokens / KV_BLOCK_TOKENS);
}
