import { attributeTokens, NO_USAGE } from './tokens';
import { C, E, R, T } from './test-support/records';

const U = NO_USAGE;
const run = (kinds: number[], usage: number[], final: number | null) => {
  const { tokens, source } = attributeTokens(
    Uint8Array.from(kinds),
    Int32Array.from(usage),
    kinds.length,
    final,
  );
  return { tokens: Array.from(tokens), source };
};

describe('attributeTokens', () => {
  it('uses continuous usage deltas when every output chunk reports cumulative completion_tokens', () => {
    // role chunk (0), content 1, content bundling 3, content 1, finish chunk, usage-only chunk
    expect(run([E, C, C, C, E, E], [0, 1, 4, 5, 5, 5], 5)).toEqual({
      tokens: [0, 1, 3, 1, 0, 0],
      source: 'usage_delta',
    });
  });

  it('moves a delta reported on a chunk without text to the next output chunk, and leaves a trailing one out', () => {
    // a held-back partial character (empty delta) then its text; the EOS counted in the finish chunk
    expect(run([E, C, E, C, E], [0, 1, 2, 3, 4], 4)).toEqual({
      tokens: [0, 1, 0, 2, 0],
      source: 'usage_delta',
    });
  });

  it('counts reasoning and tool-call chunks as output', () => {
    expect(run([E, R, R, C, T], [0, 2, 3, 4, 6], null)).toEqual({
      tokens: [0, 2, 1, 1, 2],
      source: 'usage_delta',
    });
  });

  it('spreads a final usage evenly over output chunks, remainder to the earliest', () => {
    // 11 tokens over 4 output chunks: 3, 3, 3, 2
    expect(run([E, C, C, C, C, E], [U, U, U, U, U, 11], 11)).toEqual({
      tokens: [0, 3, 3, 3, 2, 0],
      source: 'usage_final',
    });
    // some output chunks without usage: the per-chunk reports are incomplete, so only the total is used
    expect(run([C, C, C], [1, U, 3], 3)).toEqual({ tokens: [1, 1, 1], source: 'usage_final' });
  });

  it('falls back to one token per output chunk without usage, or when usage is below the chunk count', () => {
    expect(run([E, C, C, E], [U, U, U, U], null)).toEqual({ tokens: [0, 1, 1, 0], source: 'chunk' });
    expect(run([C, C, C], [U, U, U], 2)).toEqual({ tokens: [1, 1, 1], source: 'chunk' });
  });

  it('does not trust usage that lags the text (every output chunk would get zero)', () => {
    expect(run([E, C, C, E], [0, 0, 0, 2], 2)).toEqual({ tokens: [0, 1, 1, 0], source: 'usage_final' });
  });

  it('attributes nothing to a response without output chunks', () => {
    expect(run([E, E], [0, 0], 0)).toEqual({ tokens: [0, 0], source: 'usage_final' });
    expect(run([], [], null)).toEqual({ tokens: [], source: 'chunk' });
  });
});
