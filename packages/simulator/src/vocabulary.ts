import { ModelTokenizer, PromptWords } from '@teapot/tokenizer';

/** The words the simulator streams (one token each) and how it counts prompt tokens. */
export interface OutputVocabulary {
  /** Each output token's text, with its leading space. */
  words: readonly string[];
  /** Whether a response's first token keeps its space (false: a SentencePiece tokenizer adds its own). */
  spaceFirst: boolean;
  /** Prompt tokens of a text. */
  count(text: string): number;
  /** A text's token ids, with a tokenizer (the prefix cache blocks these); absent: words stand for tokens. */
  encode?: (text: string) => number[];
}

/** Output text: every token is one word of this fixed vocabulary with a leading space. */
export const VOCABULARY: readonly string[] = (
  'the of and to in is was for on that with as by at from it an be this are or which his her they ' +
  'tea pot kettle leaf water steam cup brew green black oolong white herbal milk sugar lemon honey ' +
  'morning evening garden river mountain valley forest meadow stone bridge harbor island village ' +
  'window door table chair lamp book letter paper pencil clock bell candle mirror basket ribbon ' +
  'quiet bright gentle warm cold early late slow quick small large old new calm soft clear deep ' +
  'walks reads writes pours waits listens watches carries opens closes turns finds keeps brings ' +
  'token stream batch decode prefill cache kernel tensor layer head model weight latency request'
).split(' ');

/** Prompt tokens as the simulator counts them without a tokenizer: whitespace-separated words (JavaScript's \s). */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** Without a tokenizer: the fixed words out, words counted in. */
export const WORD_VOCABULARY: OutputVocabulary = {
  words: VOCABULARY.map((word) => ' ' + word),
  spaceFirst: true,
  count: countWords,
};

/**
 * With a model's tokenizer: prompts counted in its tokens, and output words that are one of its tokens
 * each and never merge with their neighbours, so a response of N tokens encodes to exactly N.
 */
export function tokenizerVocabulary(path: string): OutputVocabulary {
  const tokenizer = ModelTokenizer.fromFile(path);
  const words = new PromptWords(tokenizer);
  if (!words.separable) {
    throw new Error(
      `tokenizer ${tokenizer.identity.name}: its words merge across spaces, so streamed text cannot be one token per word`,
    );
  }
  return {
    words: words.words,
    spaceFirst: words.spaceFirst,
    count: (text) => tokenizer.count(text),
    encode: (text) => tokenizer.encode(text),
  };
}

/**
 * The text of `count` tokens starting at a seeded offset: deterministic, JSON-safe, no escaping.
 * `atStart`: these are the response's first tokens.
 */
export function tokenText(
  start: number,
  count: number,
  atStart: boolean,
  vocabulary: OutputVocabulary = WORD_VOCABULARY,
): string {
  const { words } = vocabulary;
  let text = '';
  for (let i = 0; i < count; i++) text += words[(start + i * 7) % words.length];
  return atStart && !vocabulary.spaceFirst ? text.slice(1) : text;
}
