import type { ModelTokenizer } from './model-tokenizer';

/** A source of uniform draws in [0, 1), e.g. @teapot/random's mulberry32. */
export type Draw = () => number;

/** Words kept at most: plenty for random order, and a bounded scan of a 150k-token vocabulary. */
const MAX_WORDS = 2048;
/** Calibration sequences drawn at load to check that words never merge across their boundaries. */
const CALIBRATION_WORDS = 4096;
/** Rounds of encode-and-adjust for a tokenizer whose words do merge across boundaries. */
const MAX_ADJUSTMENTS = 64;

/**
 * Lower-case words that are one token each in running text (a vocabulary entry `Ġword` or `▁word`),
 * checked by encoding: the material of exact-length prompts and of the simulator's output.
 */
export class PromptWords {
  /** Each word's text as it appears in running text: with its leading space. */
  readonly words: readonly string[];
  /**
   * Whether text may start with the leading space: true for byte-level tokenizers (" the" is one
   * token), false for SentencePiece ones that prepend their own (" the" would be "▁▁the").
   */
  readonly spaceFirst: boolean;
  /**
   * Whether a run of words is always one token per word: checked on a long random sequence at load
   * (true for every tokenizer whose pre-tokenizer splits at spaces, and for SentencePiece pieces,
   * which never span a space). When false, every prompt is encoded and adjusted to its length.
   */
  readonly separable: boolean;

  constructor(private readonly tokenizer: ModelTokenizer) {
    const candidates = [...tokenizer.vocabulary()]
      .filter(([token]) => /^(Ġ|▁)[a-z]{2,12}$/.test(token))
      .sort((a, b) => a[1] - b[1]);
    const spaceFirst = candidates.length > 0 && tokenizer.count(' ' + candidates[0][0].slice(1)) === 1;
    const words: string[] = [];
    for (const [token, id] of candidates) {
      const word = token.slice(1);
      const ids = tokenizer.encode(spaceFirst ? ' ' + word : word);
      if (ids.length === 1 && ids[0] === id) words.push(' ' + word);
      if (words.length === MAX_WORDS) break;
    }
    if (words.length < 16) {
      throw new Error(
        `tokenizer ${tokenizer.identity.name} has ${words.length} lower-case words of one token each; teapot needs at least 16 to build prompts`,
      );
    }
    this.words = words;
    this.spaceFirst = spaceFirst;
    let state = 0x9e3779b9;
    const draw = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    this.separable = this.tokenizer.count(this.text(CALIBRATION_WORDS, draw)) === CALIBRATION_WORDS;
  }

  /** `count` random words as running text (the first without its space where spaceFirst is false). */
  text(count: number, draw: Draw): string {
    let text = '';
    for (let i = 0; i < count; i++) text += this.words[Math.floor(draw() * this.words.length)];
    return this.spaceFirst ? text : text.slice(1);
  }

  /**
   * A prompt of exactly `tokens` tokens of this tokenizer (encoded alone, without special tokens).
   * Separable words make it by construction; otherwise it is encoded and words added or removed
   * until the count is exact.
   */
  prompt(tokens: number, draw: Draw): string {
    if (!Number.isInteger(tokens) || tokens < 1)
      throw new RangeError(`a prompt needs a positive whole number of tokens, got ${tokens}`);
    let text = this.text(tokens, draw);
    if (this.separable) return text;
    for (let round = 0; round < MAX_ADJUSTMENTS; round++) {
      const ids = this.tokenizer.encode(text);
      if (ids.length === tokens) return text;
      if (ids.length < tokens) {
        text += this.text(tokens - ids.length, draw).replace(/^(?! )/, ' ');
      } else {
        // cut at a word boundary at or before the token where the prompt is one token too long
        const keep = this.tokenizer.decode(ids.slice(0, tokens)).length;
        const cut = text.lastIndexOf(' ', Math.min(keep, text.length - 1));
        text = cut > 0 ? text.slice(0, cut) : text.slice(0, Math.max(1, keep));
      }
    }
    throw new Error(
      `could not build a prompt of exactly ${tokens} tokens with ${this.tokenizer.identity.name}`,
    );
  }
}
