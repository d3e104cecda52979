/** Tokens per KV-cache block (vLLM's default block_size). */
export const KV_BLOCK_TOKENS = 16;

/**
 * The KV cache's blocks, counted, with vLLM's automatic prefix caching on top: a full prompt block,
 * once computed, is known by its hash (chained over the blocks before it), shared by every running
 * sequence whose prompt starts the same way, and kept when the last of them ends, until its room is
 * needed (least recently freed first). Free blocks are the empty ones plus those cached ones nobody
 * holds; a sequence's private blocks are counted, not named.
 */
export class BlockPool {
  private totalBlocks: number;
  private freeBlocks: number;
  /** Cached blocks by hash, with the number of running sequences holding each (0: evictable). */
  private readonly holders = new Map<number, number>();
  /** Cached blocks nobody holds (part of freeBlocks), oldest first: evicted in this order. */
  private readonly evictable = new Set<number>();

  constructor(totalBlocks: number) {
    this.totalBlocks = totalBlocks;
    this.freeBlocks = totalBlocks;
  }

  get total(): number {
    return this.totalBlocks;
  }

  get free(): number {
    return this.freeBlocks;
  }

  /** Share of the blocks held by running sequences (vLLM's kv_cache_usage_perc): cached free blocks count as free. */
  get usage(): number {
    return this.totalBlocks === 0 ? 0 : (this.totalBlocks - this.freeBlocks) / this.totalBlocks;
  }

  /** A new size counts from now: blocks held stay held (free may go negative until they are freed). */
  resize(totalBlocks: number): void {
    this.freeBlocks += totalBlocks - this.totalBlocks;
    this.totalBlocks = totalBlocks;
    this.evictDownTo(Math.max(0, this.freeBlocks));
  }

  /** How many of the leading hashes are cached (held or evictable), at most `limit`. */
  cachedPrefix(hashes: readonly number[], limit: number): number {
    let n = 0;
    while (n < Math.min(limit, hashes.length) && this.holders.has(hashes[n])) n++;
    return n;
  }

  /** Cached blocks among these that nobody holds now: taking them uses free blocks. */
  evictableAmong(hashes: readonly number[]): number {
    let n = 0;
    for (const hash of hashes) if (this.evictable.has(hash)) n++;
    return n;
  }

  /** Holds these cached blocks for one more sequence. */
  hold(hashes: readonly number[]): void {
    for (const hash of hashes) {
      if (this.evictable.delete(hash)) this.freeBlocks--;
      this.holders.set(hash, (this.holders.get(hash) ?? 0) + 1);
    }
  }

  /** Takes n empty blocks, evicting the least recently freed cached ones when there are not enough. */
  allocate(n: number): void {
    this.evictDownTo(Math.max(0, this.freeBlocks - n));
    this.freeBlocks -= n;
  }

  /**
   * A sequence computed the full block `hash` in one of its private blocks: it becomes a cached block
   * it holds. False (the block stays private) when that block is cached already, computed by another.
   */
  register(hash: number): boolean {
    if (this.holders.has(hash)) return false;
    this.holders.set(hash, 1);
    return true;
  }

  /** A sequence ends or is preempted: its private blocks are empty again, its cached ones stay cached. */
  release(privateBlocks: number, hashes: readonly number[]): void {
    this.freeBlocks += privateBlocks;
    // the deepest blocks of a prefix are the least likely to be shared: freed first, evicted first (as vLLM)
    for (let i = hashes.length - 1; i >= 0; i--) {
      const hash = hashes[i];
      const left = (this.holders.get(hash) ?? 1) - 1;
      this.holders.set(hash, left);
      if (left > 0) continue;
      this.evictable.add(hash);
      this.freeBlocks++;
    }
    this.evictDownTo(Math.max(0, this.freeBlocks));
  }

  /** Forgets everything (the engine closed). */
  clear(): void {
    this.freeBlocks = this.totalBlocks;
    this.holders.clear();
    this.evictable.clear();
  }

  /** Evicts the oldest unheld cached blocks until at most `room` of them are left. */
  private evictDownTo(room: number): void {
    for (const hash of this.evictable) {
      if (this.evictable.size <= room) return;
      this.evictable.delete(hash);
      this.holders.delete(hash);
    }
  }
}

export function blocksFor(tokens: number): number {
  return Math.ceil(tokens / KV_BLOCK_TOKENS);
}

/**
 * The hash of each full block of a prompt, chained: block i's hash mixes block i - 1's hash with its
 * own 16 token ids, so equal hashes mean equal prefixes (vLLM's hash_block_tokens). 53 bits, two
 * independent 32-bit mixes, so that a collision needs about 10^8 distinct blocks.
 */
export function promptBlockHashes(tokenIds: ArrayLike<number>): number[] {
  const hashes: number[] = [];
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let block = 0; (block + 1) * KV_BLOCK_TOKENS <= tokenIds.length; block++) {
    for (let i = block * KV_BLOCK_TOKENS; i < (block + 1) * KV_BLOCK_TOKENS; i++) {
      const id = tokenIds[i] >>> 0;
      a = Math.imul(a ^ id, 0x01000193);
      b = Math.imul(b ^ id, 0x5bd1e995);
      b ^= b >>> 15;
    }
    a = Math.imul(a ^ (a >>> 16), 0x85ebca6b) >>> 0;
    b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35) >>> 0;
    hashes.push((a & 0x1fffff) * 0x100000000 + b);
  }
  return hashes;
}
