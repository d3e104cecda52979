import { mulberry32 } from '@teapot/random';
import type { ApiKind } from './openai-request';
import { deriveSeed } from './rng';

/**
 * The identities of a validated request's prompt tokens, in order, as the prefix cache and the
 * speculative decoder see them: each whitespace-separated word (the simulator's prompt token) as a
 * 32-bit hash of its text, or a completions prompt's own token ids. Chat reads every message's text
 * in order (roles and templates left out), so a conversation resent with one more turn starts with
 * the previous turn's tokens, and a shared system prompt with the same ones.
 */
export function promptTokenIds(api: ApiKind, body: Record<string, unknown>): number[] {
  const ids: number[] = [];
  const addText = (text: unknown): void => {
    if (typeof text !== 'string') return;
    for (const word of text.match(/\S+/g) ?? []) ids.push(wordId(word));
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
