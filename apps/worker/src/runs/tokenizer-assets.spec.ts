import { TokenizerFileError } from '@teapot/tokenizer';
import { TokenizerAssets, type StoredAsset } from './tokenizer-assets';

/** A store of tokenizers `a`..`e` of `size` bytes each, counting its reads. */
function store(size: number) {
  const reads: string[] = [];
  const read = (sha256: string): Promise<StoredAsset> => {
    reads.push(sha256);
    if (sha256 === 'dataset') return Promise.resolve({ kind: 'dataset', bytes: Buffer.alloc(1) });
    return Promise.resolve(/^[a-e]$/.test(sha256) ? { kind: 'tokenizer', bytes: Buffer.alloc(size) } : null);
  };
  return { reads, read };
}

describe('TokenizerAssets', () => {
  it('reads a hash once while it stays cached, dropping the least recently used past the entry limit', async () => {
    const { reads, read } = store(10);
    const cache = new TokenizerAssets(read, { entries: 2, bytes: 1000 });
    await cache.source('a');
    await cache.source('b');
    await cache.source('a');
    expect(reads).toEqual(['a', 'b']);
    await cache.source('c');
    expect(cache.hashes).toEqual(['a', 'c']);
    await cache.source('b');
    expect(reads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('holds at most the byte limit, and never caches a file larger than it', async () => {
    const { reads, read } = store(40);
    const cache = new TokenizerAssets(read, { entries: 10, bytes: 100 });
    for (const sha of ['a', 'b', 'c']) await cache.source(sha);
    expect(cache.hashes).toEqual(['b', 'c']);
    const small = new TokenizerAssets(store(200).read, { entries: 10, bytes: 100 });
    expect((await small.source('a')).bytes.length).toBe(200);
    expect(small.hashes).toEqual([]);
    expect(reads).toHaveLength(3);
  });

  it('refuses a missing hash or another kind of asset as a TokenizerFileError, caching neither', async () => {
    const cache = new TokenizerAssets(store(10).read);
    await expect(cache.source('z')).rejects.toThrow(TokenizerFileError);
    await expect(cache.source('z')).rejects.toThrow(/no asset is stored under it/);
    await expect(cache.source('dataset')).rejects.toThrow(/the asset stored under it is a dataset/);
    expect(cache.hashes).toEqual([]);
  });
});
