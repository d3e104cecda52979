import { Tokenizer as Reference } from 'tokenizers';
import { ModelTokenizer } from './model-tokenizer';
import { PromptWords } from './prompt-words';
import { FIXTURES } from './test-support/corpus';

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('PromptWords', () => {
  it.each(Object.entries(FIXTURES))(
    'builds prompts of exactly N tokens for many N and seeds (%s)',
    async (_, file) => {
      const tokenizer = ModelTokenizer.fromFile(file);
      const words = new PromptWords(tokenizer);
      expect(words.separable).toBe(true);
      const reference = Reference.fromFile(file);
      for (let seed = 1; seed <= 12; seed++) {
        const draw = seeded(seed);
        for (const n of [1, 2, 3, 7, 64, 100, 333, 1024, 2049]) {
          const prompt = words.prompt(n, draw);
          expect({ n, seed, ours: tokenizer.count(prompt) }).toEqual({ n, seed, ours: n });
          const ids = (await reference.encode(prompt, null, { addSpecialTokens: false })).getIds();
          expect({ n, seed, reference: ids.length }).toEqual({ n, seed, reference: n });
        }
      }
    },
  );

  it('starts text with the space only where the tokenizer reads it as part of the first word', () => {
    expect(new PromptWords(ModelTokenizer.fromFile(FIXTURES.byteLevel)).spaceFirst).toBe(true);
    const sentencePiece = new PromptWords(ModelTokenizer.fromFile(FIXTURES.sentencePiece));
    expect(sentencePiece.spaceFirst).toBe(false);
    expect(sentencePiece.text(5, seeded(1))).toMatch(/^[a-z]+( [a-z]+){4}$/);
  });

  it('encodes nothing to build a prompt from separable words (the send path stays cheap)', () => {
    const tokenizer = ModelTokenizer.fromFile(FIXTURES.byteLevel);
    const words = new PromptWords(tokenizer);
    const encode = jest.spyOn(tokenizer, 'encode');
    for (const n of [10, 1000, 4000]) words.prompt(n, seeded(n));
    expect(encode).not.toHaveBeenCalled();
  });

  it('gives the same prompt for the same seed', () => {
    const words = new PromptWords(ModelTokenizer.fromFile(FIXTURES.byteLevel));
    expect(words.prompt(50, seeded(9))).toBe(words.prompt(50, seeded(9)));
    expect(words.prompt(50, seeded(9))).not.toBe(words.prompt(50, seeded(10)));
  });
});

describe('PromptWords without separable words', () => {
  it('encodes and adjusts each prompt to its length', () => {
    const tokenizer = ModelTokenizer.fromFile(FIXTURES.sentencePiece);
    const words = new PromptWords(tokenizer);
    // the path a tokenizer whose words merge across spaces takes, on real prompts
    Object.defineProperty(words, 'separable', { value: false });
    const encode = jest.spyOn(tokenizer, 'encode');
    const draw = seeded(3);
    for (const n of [1, 5, 99, 500]) expect(tokenizer.count(words.prompt(n, draw))).toBe(n);
    expect(encode.mock.calls.length).toBeGreaterThanOrEqual(8);
  });
});
