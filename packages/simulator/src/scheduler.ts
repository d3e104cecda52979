import type { StepWork } from './latency-model';
import { BlockPool, KV_BLOCK_TOKENS, blocksFor } from './block-pool';
import type { Random } from './rng';

/** How a step is composed, as a serving engine is configured (vLLM's names in the comments). */
export interface SchedulerOptions {
  /** Sequences in the running batch at once (max_num_seqs); the rest wait. */
  maxBatch: number;
  /** Prefill shares steps with decodes (enable_chunked_prefill). */
  chunkedPrefill: boolean;
  /**
   * With chunked prefill, tokens per step (max_num_batched_tokens): every running decode counts (1 + its
   * draft tokens), prompt chunks take what is left.
   */
  chunkSize: number;
  /** Without chunked prefill: whole prompts prefilled per step up to this many tokens (at least one). */
  maxPrefillTokens: number;
  /** KV-cache slots, in tokens (num_gpu_blocks x block_size); rounded down to whole blocks. */
  kvCacheTokens: number;
  /** Automatic prefix caching (enable_prefix_caching); default off. */
  prefixCaching?: boolean;
  /** Draft tokens per step and decoding sequence (num_speculative_tokens); 0 or absent: no speculative decoding. */
  speculativeTokens?: number;
  /** Each draft token's acceptance probability for sequences that bring none of their own. */
  draftAcceptance?: number;
}

export { KV_BLOCK_TOKENS } from './block-pool';

/** Blocks admission leaves free for running sequences to grow into (vLLM's watermark, 1%). */
const WATERMARK_SHARE = 0.01;

/** What a sequence needs from whoever submitted it: its lengths, and what the mechanisms read. */
export interface SequenceLengths {
  promptTokens: number;
  /** Output tokens this sequence will produce (its EOS or max_tokens, decided up front). */
  outputTokens: number;
  /** Hashes of the prompt's full blocks (promptBlockHashes), for prefix caching. */
  promptBlockHashes?: readonly number[];
  /** This sequence's probability that a draft token is accepted (speculative decoding). */
  draftAcceptance?: number;
  /** Where the mechanisms count what they did for this sequence (the response's ground truth). */
  tally?: ServingTally;
}

/** What the serving mechanisms did for one sequence. */
export interface ServingTally {
  /** Prompt tokens looked up in the prefix cache, and those found (every admission, as vLLM counts). */
  prefixCacheQueryTokens: number;
  prefixCacheHitTokens: number;
  /** Verify steps with a draft, draft tokens proposed, draft tokens accepted. */
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  /** Times it was preempted and recomputed. */
  preemptions: number;
}

export function emptyTally(): ServingTally {
  return {
    prefixCacheQueryTokens: 0,
    prefixCacheHitTokens: 0,
    drafts: 0,
    draftTokens: 0,
    acceptedTokens: 0,
    preemptions: 0,
  };
}

/** The engine's counters since start, as vLLM's Prometheus counters count them. */
export interface SchedulerCounters {
  preemptions: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  specDecodeDrafts: number;
  specDecodeDraftTokens: number;
  specDecodeAcceptedTokens: number;
  /** Accepted draft tokens by position in the draft (index 0: the first draft token). */
  specDecodeAcceptedPerPosition: number[];
  /** Prompt tokens of sequences that produced their first token (vLLM's prompt_tokens). */
  promptTokens: number;
  generationTokens: number;
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
  /** Tokens whose keys and values are in the cache; private blocks held, and cached blocks held by hash. */
  cachedTokens = 0;
  blocks = 0;
  sharedHashes: number[] = [];
  /** Tokens the current step produces for it (1, or with speculative decoding 1 + accepted drafts). */
  stepTokens = 0;
  readonly tally: ServingTally;

  constructor(readonly request: R) {
    this.prefillWork = Math.max(1, request.promptTokens);
    this.tally = request.tally ?? emptyTally();
  }

  get done(): boolean {
    return this.cancelled || this.generated >= this.request.outputTokens;
  }

  get heldBlocks(): number {
    return this.blocks + this.sharedHashes.length;
  }
}

/**
 * The continuous-batching scheduler, with no clock: at each step boundary it admits waiting sequences
 * up to maxBatch and composes the next step (a prefill step, a decode step, or with chunked prefill a
 * mixed one); when the step ends, its emitters each produce their tokens (one, or with speculative
 * decoding one plus the accepted drafts). The real-time Engine and the virtual-time replay (replay.ts)
 * both drive this one class, so the simulator's ground truth about its own capacity comes from the
 * very model it serves with.
 */
export class BatchScheduler<R extends SequenceLengths = SequenceLengths> {
  private running: Sequence<R>[] = [];
  private waiting: Sequence<R>[] = [];
  private waitingHead = 0;
  private emitters: Sequence<R>[] = [];
  private readonly pool: BlockPool;
  readonly counters: SchedulerCounters = {
    preemptions: 0,
    prefixCacheQueries: 0,
    prefixCacheHits: 0,
    specDecodeDrafts: 0,
    specDecodeDraftTokens: 0,
    specDecodeAcceptedTokens: 0,
    specDecodeAcceptedPerPosition: [],
    promptTokens: 0,
    generationTokens: 0,
  };

  /** `random` draws speculative decoding's acceptances (seeded by the caller). */
  constructor(
    private options: SchedulerOptions,
    private readonly random: Random = Math.random,
  ) {
    this.pool = new BlockPool(Math.floor(options.kvCacheTokens / KV_BLOCK_TOKENS));
  }

  /** A new cache size counts from now: blocks held stay held (the free count may go negative until they are freed). */
  reconfigure(change: Partial<SchedulerOptions>): void {
    this.options = { ...this.options, ...change };
    this.pool.resize(Math.floor(this.options.kvCacheTokens / KV_BLOCK_TOKENS));
  }

  /** Running sequences preempted since start (vLLM's num_preemptions). */
  get preemptions(): number {
    return this.counters.preemptions;
  }

  /** Share of the KV cache's blocks held by running sequences (vLLM's kv_cache_usage_perc). */
  get kvCacheUsage(): number {
    return this.pool.usage;
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
   * The step ended: the sequences that produced tokens in it (stepTokens each, already added to
   * generated), cancelled ones left out. Call dropFinished() after delivering them.
   */
  takeEmitters(): Sequence<R>[] {
    const emitters: Sequence<R>[] = [];
    for (const s of this.emitters) {
      if (s.cancelled) continue;
      if (s.generated === 0) this.counters.promptTokens += s.request.promptTokens;
      s.generated += s.stepTokens;
      this.counters.generationTokens += s.stepTokens;
      emitters.push(s);
    }
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
    this.pool.clear();
  }

  /**
   * First come, first served, as vLLM admits: the head of the queue needs blocks for all it will
   * prefill (less the cached prefix it reuses), leaving the watermark free; when it does not fit,
   * nobody behind it is admitted either.
   */
  private admit(): void {
    const watermark = Math.floor(this.pool.total * WATERMARK_SHARE);
    while (this.waitingHead < this.waiting.length && this.running.length < this.options.maxBatch) {
      const sequence = this.waiting[this.waitingHead];
      if (sequence.cancelled) {
        this.waitingHead++;
        continue;
      }
      const hits = this.cachedPrefix(sequence);
      const need = blocksFor(sequence.prefillWork) - hits.length + this.pool.evictableAmong(hits);
      const free = this.pool.free;
      if (free - need < watermark && !(this.running.length === 0 && need <= free)) break;
      this.waitingHead++;
      this.pool.hold(hits);
      this.pool.allocate(blocksFor(sequence.prefillWork) - hits.length);
      sequence.sharedHashes = hits;
      sequence.blocks = blocksFor(sequence.prefillWork) - hits.length;
      sequence.prefilled = sequence.cachedTokens = hits.length * KV_BLOCK_TOKENS;
      this.countLookup(sequence, hits.length * KV_BLOCK_TOKENS);
      this.running.push(sequence);
    }
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingHead);
      this.waitingHead = 0;
    }
  }

  /** The cached blocks a sequence can reuse: whole blocks, always leaving one token to compute (as vLLM). */
  private cachedPrefix(sequence: Sequence<R>): number[] {
    const hashes = sequence.request.promptBlockHashes;
    if (!this.options.prefixCaching || !hashes) return [];
    const limit = Math.floor((sequence.prefillWork - 1) / KV_BLOCK_TOKENS);
    return hashes.slice(0, this.pool.cachedPrefix(hashes, limit));
  }

  private countLookup(sequence: Sequence<R>, hitTokens: number): void {
    if (!this.options.prefixCaching) return;
    this.counters.prefixCacheQueries += sequence.prefillWork;
    this.counters.prefixCacheHits += hitTokens;
    sequence.tally.prefixCacheQueryTokens += sequence.prefillWork;
    sequence.tally.prefixCacheHitTokens += hitTokens;
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
      this.prefill(s, need);
      emitters.push(s);
    }
    if (emitters.length > 0) {
      this.emitters = emitters;
      return { decodeTokens: 0, prefillTokens, kvTokensRead: 0 };
    }
    this.reserveDecodeSlots();
    const work = emptyWork();
    for (const s of this.running) this.decode(s, work);
    this.emitters = this.running.slice();
    return work;
  }

  /**
   * With chunked prefill, every step decodes all running streams and prefills prompt chunks with the
   * rest of the token budget (chunkSize, vLLM's max_num_batched_tokens, decodes counted first).
   */
  private composeChunked(): StepWork {
    this.reserveDecodeSlots();
    const work = emptyWork();
    const emitters: Sequence<R>[] = [];
    for (const s of this.running) {
      if (s.prefilled < s.prefillWork) continue;
      this.decode(s, work);
      emitters.push(s);
    }
    let budget = this.options.chunkSize - work.decodeTokens;
    for (const s of this.running) {
      if (s.prefilled >= s.prefillWork || budget <= 0) continue;
      const take = Math.min(budget, s.prefillWork - s.prefilled);
      work.kvTokensRead += s.prefilled;
      this.prefill(s, take);
      budget -= take;
      work.prefillTokens += take;
      if (s.prefilled >= s.prefillWork) emitters.push(s);
    }
    this.emitters = emitters;
    return work;
  }

  /** Prefills `tokens` more of a sequence; its prompt's newly full blocks join the prefix cache. */
  private prefill(s: Sequence<R>, tokens: number): void {
    s.prefilled += tokens;
    s.cachedTokens = s.prefilled;
    s.stepTokens = 1;
    const hashes = s.request.promptBlockHashes;
    if (!this.options.prefixCaching || !hashes) return;
    const full = Math.min(hashes.length, Math.floor(s.prefilled / KV_BLOCK_TOKENS));
    for (let i = s.sharedHashes.length; i < full && s.blocks > 0; i++) {
      if (!this.pool.register(hashes[i])) break;
      s.sharedHashes.push(hashes[i]);
      s.blocks--;
    }
  }

  /**
   * One decoding sequence's share of the step: one token, or with speculative decoding k drafts
   * verified together (k + 1 target positions), of which a prefix is accepted, each draft with the
   * sequence's acceptance probability and only if the one before it was (rejection sampling); the
   * target adds one token of its own, so the step yields 1 to k + 1 tokens.
   */
  private decode(s: Sequence<R>, work: StepWork): void {
    const context = s.request.promptTokens + s.generated;
    const k = this.draftsFor(s);
    let accepted = 0;
    if (k > 0) {
      const p = s.request.draftAcceptance ?? this.options.draftAcceptance ?? 0;
      const perPosition = this.counters.specDecodeAcceptedPerPosition;
      while (accepted < k && this.random() < p) {
        perPosition[accepted] = (perPosition[accepted] ?? 0) + 1;
        accepted++;
      }
      s.tally.drafts++;
      s.tally.draftTokens += k;
      s.tally.acceptedTokens += accepted;
      this.counters.specDecodeDrafts++;
      this.counters.specDecodeDraftTokens += k;
      this.counters.specDecodeAcceptedTokens += accepted;
      work.draftPasses = Math.max(work.draftPasses ?? 0, k);
      work.draftSequences = (work.draftSequences ?? 0) + 1;
      work.draftKvTokensRead = (work.draftKvTokensRead ?? 0) + context;
    }
    work.decodeTokens += k + 1;
    work.kvTokensRead += context;
    s.stepTokens = 1 + accepted;
    s.cachedTokens += s.stepTokens;
  }

  /** Draft tokens this step: k, but none past the sequence's last token. */
  private draftsFor(s: Sequence<R>): number {
    const k = this.options.speculativeTokens ?? 0;
    return Math.max(0, Math.min(k, s.request.outputTokens - s.generated - 1));
  }

  /**
   * Every decoding sequence writes its next tokens' keys and values this step (with speculative
   * decoding, slots for all k + 1 verified positions, as vLLM reserves lookahead slots). When one needs
   * a new block and none is free, the most recently admitted running sequence is preempted (vLLM's
   * recompute): its blocks are freed and it returns to the front of the queue, to prefill its prompt
   * and the tokens it generated again; its stream stalls meanwhile, nothing already sent is resent.
   */
  private reserveDecodeSlots(): void {
    for (let i = 0; i < this.running.length; i++) {
      const s = this.running[i];
      if (s.prefilled < s.prefillWork) continue;
      const need = blocksFor(s.cachedTokens + 1 + this.draftsFor(s)) - s.heldBlocks;
      if (need <= 0) continue;
      while (this.pool.free < need && this.running.length - 1 > i) this.preempt(this.running.pop()!);
      if (this.pool.free < need) {
        this.running.pop();
        this.preempt(s);
        return;
      }
      this.pool.allocate(need);
      s.blocks += need;
    }
  }

  private preempt(s: Sequence<R>): void {
    this.counters.preemptions++;
    s.tally.preemptions++;
    this.release(s);
    s.prefillWork = Math.max(1, s.request.promptTokens + s.generated);
    s.prefilled = 0;
    if (this.waitingHead > 0) this.waiting[--this.waitingHead] = s;
    else this.waiting.unshift(s);
  }

  private release(s: Sequence<R>): void {
    this.pool.release(s.blocks, s.sharedHashes);
    s.blocks = 0;
    s.sharedHashes = [];
    s.cachedTokens = 0;
  }
}

function emptyWork(): StepWork {
  return { decodeTokens: 0, prefillTokens: 0, kvTokensRead: 0 };
}
