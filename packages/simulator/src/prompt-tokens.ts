import { mulberry32 } from '@teapot/random';
import type { ApiKind } from './openai-request';
import { deriveSeed } from './rng';
import type { OutputVocabulary } from './vocabulary';

/** How one request's prompt texts are read: counted (validation) and as token ids (prefix cache, drafts). */
export interface PromptReader {
  count(text: string): number;
  ids(text: string): readonly number[];
}

/**
 * A reader for one request. Without a tokenizer a prompt token is a whitespace-separated word, its id a
 * hash of its text. With one, the ids are the tokenizer's, so the prefix cache's 16-token blocks (and
 * its hit rate) are in the model's tokens, the unit clients count reuse in; each text is encoded once,
 * for its count and its ids alike (encoding is the costly part, on the event loop that serves streams).
 */
export function promptReader(vocabulary: OutputVocabulary): PromptReader {
  const { encode } = vocabulary;
  if (encode === undefined) return { count: vocabulary.count, ids: wordIds };
  const encoded = new Map<string, number[]>();
  const ids = (text: string): number[] => {
    let known = encoded.get(text);
    if (known === undefined) encoded.set(text, (known = encode(text)));
    return known;
  };
  return { count: (text) => ids(text).length, ids };
}

/**
 * The identities of a validated request's prompt tokens, in order, as the prefix cache and the
 * speculative decoder see them: each text's ids (`readIds`: words hashed, or the tokenizer's), or a
 * completions prompt's own token ids. Chat reads every message's text in order (roles and templates
 * left out), so a conversation resent with one more turn starts with the previous turn's tokens, and a
 * shared system prompt with the same ones.
 */
export function promptTokenIds(
  api: ApiKind,
  body: Record<string, unknown>,
  readIds: (text: string) => readonly number[] = wordIds,
): number[] {
  const ids: number[] = [];
  const addText = (text: unknown): void => {
    if (typeof text !== 'string') return;
    for (const id of readIds(text)) ids.push(id);
  };
  if (api === 'completions') {
    let prompt = body.prompt;
    if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] !== 'number') prompt = prompt[0];
    if (Array.isArray(prompt)) for (const id of prompt) ids.push(Number(id) >>> 0);
    else addText(prompt);
    return ids;
  }
  for (const message of body.messages as Array<{ content?: unknown }>) {
    const content = message.content;
    if (!Array.isArray(content)) addText(content);
    else
      for (const part of content as Array<{ type?: unknown; text?: unknown }>) {
        if (part?.type === 'text') addText(part.text);
      }
  }
  return ids;
}

function wordIds(text: string): number[] {
  return (text.match(/\S+/g) ?? []).map(wordId);
}

/** FNV-1a over the word's UTF-16 code units. */
function wordId(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A request's draft-token acceptance probability: how predictable its text is to the draft model,
 * which depends on the workload, so it is a seeded function of the prompt (the same prompt, the same
 * acceptance), spread uniformly up to 0.15 either side of the configured mean (less near 0 or 1) so
 * that the mean over prompts is the configured one.
 */
export function promptAcceptance(tokenIds: readonly number[], seed: number, mean: number): number {
  let h = 0x9e3779b9;
  for (const id of tokenIds) h = Math.imul(h ^ id, 0x5bd1e995) ^ (h >>> 13);
  const u = mulberry32(deriveSeed(seed, h >>> 0))();
  const spread = Math.min(0.15, mean, 1 - mean);
  return mean + spread * (2 * u - 1);
}
