import { TimingSlab } from './timing-slab';

describe('TimingSlab', () => {
  it('gives each record zeroed, aligned arrays that no other record shares', () => {
    const slab = new TimingSlab();
    const records = [3, 0, 5, 1, 50].map((chunks) => ({ chunks, timings: slab.take(chunks) }));
    records.forEach(({ chunks, timings }, r) => {
      expect(timings.offsetsUs).toHaveLength(chunks);
      expect(timings.tokens).toHaveLength(chunks);
      expect(timings.kinds).toHaveLength(chunks);
      expect(timings.offsetsUs.byteOffset % 4).toBe(0);
      expect(timings.tokens.byteOffset % 2).toBe(0);
      expect(Array.from(timings.offsetsUs).every((v) => v === 0)).toBe(true);
      timings.offsetsUs.fill(0xffffffff - r);
      timings.tokens.fill(0xffff - r);
      timings.kinds.fill(0xff - r);
    });
    // every value is still the one its own record wrote: nothing overlapped
    records.forEach(({ timings }, r) => {
      expect(new Set(timings.offsetsUs)).toEqual(new Set(timings.offsetsUs.length ? [0xffffffff - r] : []));
      expect(new Set(timings.tokens)).toEqual(new Set(timings.tokens.length ? [0xffff - r] : []));
      expect(new Set(timings.kinds)).toEqual(new Set(timings.kinds.length ? [0xff - r] : []));
    });
    // small records share a few buffers rather than owning three each
    expect(new Set(records.map(({ timings }) => timings.offsetsUs.buffer)).size).toBe(1);
  });

  it('starts a new buffer when one is full, and fits a record larger than a buffer', () => {
    const slab = new TimingSlab();
    const first = slab.take(10);
    const huge = slab.take(100_000);
    const after = slab.take(10);
    expect(huge.offsetsUs.buffer).not.toBe(first.offsetsUs.buffer);
    expect(huge.kinds).toHaveLength(100_000);
    expect(after.offsetsUs.buffer).not.toBe(huge.offsetsUs.buffer);
  });
});
