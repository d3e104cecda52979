import { MAX_TOKENIZER_BYTES, TokenizerFileError, type TokenizerSource } from '@teapot/tokenizer';

/** What the store holds under a hash: the asset's kind and bytes, or null. */
export type StoredAsset = { kind: string; bytes: Buffer } | null;

/** Cached at most: a worker measures a few models, and a tokenizer.json is up to 64 MiB. */
export const TOKENIZER_CACHE_LIMITS = { entries: 4, bytes: 2 * MAX_TOKENIZER_BYTES };

/**
 * Uploaded tokenizers by SHA-256, for the runs of this worker process. Each run loads its tokenizer on
 * a measuring thread of its own (a loaded tokenizer cannot cross threads), so what is kept here is the
 * file, least recently used dropped first: a run of the same model then costs no database read of
 * megabytes of bytea, only the load on its thread. Bytes stored under a hash never change.
 */
export class TokenizerAssets {
  private readonly cached = new Map<string, TokenizerSource>();
  private cachedBytes = 0;

  constructor(
    private readonly read: (sha256: string) => Promise<StoredAsset>,
    private readonly limits = TOKENIZER_CACHE_LIMITS,
  ) {}

  /** The tokenizer.json stored under `sha256`; TokenizerFileError when none is (a configuration error). */
  async source(sha256: string): Promise<TokenizerSource> {
    const hit = this.cached.get(sha256);
    if (hit !== undefined) {
      this.cached.delete(sha256);
      this.cached.set(sha256, hit);
      return hit;
    }
    const asset = await this.read(sha256);
    if (asset === null || asset.kind !== 'tokenizer') {
      throw new TokenizerFileError(
        `the profile names uploaded tokenizer ${sha256}, but ${asset === null ? 'no asset is stored under it' : `the asset stored under it is a ${asset.kind}`}`,
      );
    }
    const source = { name: `uploaded ${sha256.slice(0, 12)}`, bytes: asset.bytes };
    this.keep(sha256, source);
    return source;
  }

  /** Hashes cached, least recently used first. */
  get hashes(): string[] {
    return [...this.cached.keys()];
  }

  private keep(sha256: string, source: TokenizerSource): void {
    if (this.cached.has(sha256) || source.bytes.length > this.limits.bytes) return;
    this.cached.set(sha256, source);
    this.cachedBytes += source.bytes.length;
    for (const [oldest, { bytes }] of this.cached) {
      if (this.cached.size <= this.limits.entries && this.cachedBytes <= this.limits.bytes) break;
      this.cached.delete(oldest);
      this.cachedBytes -= bytes.length;
    }
  }
}
