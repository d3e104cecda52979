import { deriveSeed, mulberry32, type Random } from './random';
import type { RunTokenizer } from './run-tokenizer';
import type { Workload } from './types';
import { singleTurnSpec, syntheticPrompt, type PromptSpec } from './prompt-spec';

type SharedPrefixWorkload = Extract<Workload, { kind: 'shared-prefix' }>;

/**
 * The order in which P prefixes are used M times each: M rounds, each a seeded permutation of the P
 * prefixes, a round never opening with the prefix that closed the one before (with P > 1), so no
 * prefix is used twice in a row and every reuse comes after other prompts, as in real traffic.
 */
export function interleavedPrefixOrder(prefixes: number, uses: number, random: Random): number[] {
  const order: number[] = [];
  for (let round = 0; round < uses; round++) {
    const perm = Array.from({ length: prefixes }, (_, p) => p);
    for (let i = prefixes - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    if (prefixes > 1 && order.length > 0 && perm[0] === order[order.length - 1]) {
      const j = 1 + Math.floor(random() * (prefixes - 1));
      [perm[0], perm[j]] = [perm[j], perm[0]];
    }
    order.push(...perm);
  }
  return order;
}

/**
 * Requests sharing P prefixes of L tokens, each prefix used by M requests with a suffix of its own.
 * After P x M requests a new set of P prefixes is drawn, so every prefix is used exactly M times; a
 * prefix's first use is a miss for any cache, its other uses could hit its L tokens. Without a
 * tokenizer a token is a word; with one, prefix and suffix are its one-token words (PromptWords), so
 * the prompt is exactly L + S of its tokens and the reuse share is in the tokens a server caches.
 */
export function sharedPrefixPrompts(
  workload: SharedPrefixWorkload,
  seed: number,
  tokenizer?: RunTokenizer,
): () => PromptSpec {
  const { prefixes, prefixTokens, requestsPerPrefix, suffixTokens, outputTokens } = workload;
  const orderRandom = mulberry32(deriveSeed(seed, 4));
  const suffixRandom = mulberry32(deriveSeed(seed, 5));
  const prefixSeed = deriveSeed(seed, 6);
  const text = tokenizer
    ? (tokens: number, random: Random) => tokenizer.words.prompt(tokens, random)
    : syntheticPrompt;
  // byte-level words carry their leading space; elsewhere (words, SentencePiece) text starts without one
  const joiner = tokenizer?.words.spaceFirst ? '' : ' ';
  let generation = -1;
  let order: number[] = [];
  let texts: string[] = [];
  let used: boolean[] = [];
  let at = 0;
  return () => {
    if (at === order.length) {
      generation++;
      order = interleavedPrefixOrder(prefixes, requestsPerPrefix, orderRandom);
      texts = Array.from({ length: prefixes }, (_, p) =>
        text(prefixTokens, mulberry32(deriveSeed(prefixSeed, generation * prefixes + p))),
      );
      used = new Array<boolean>(prefixes).fill(false);
      at = 0;
    }
    const p = order[at++];
    const reusable = used[p] ? prefixTokens : 0;
    used[p] = true;
    const prompt = `${texts[p]}${joiner}${text(suffixTokens, suffixRandom)}`;
    if (!tokenizer) {
      const words = prefixTokens + suffixTokens;
      return singleTurnSpec(prompt, outputTokens, words, words, reusable);
    }
    // words that merge across spaces (never seen on a real tokenizer) make the join inexact: count it
    const tokens = tokenizer.words.separable ? prefixTokens + suffixTokens : tokenizer.count(prompt);
    return singleTurnSpec(prompt, outputTokens, tokens, tokens, reusable);
  };
}
