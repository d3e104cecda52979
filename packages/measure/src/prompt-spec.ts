import type { Random } from './random';

/**
 * Common English words that are a single token (with their leading space) in the GPT-2/cl100k/o200k,
 * Llama 2/3, Mistral and Qwen tokenizers, and one whitespace-separated word each for the simulator,
 * so a prompt of N words is about N prompt tokens everywhere. Random order defeats prefix caching.
 */
const ONE_TOKEN_WORDS = (
  'the of and to in is you that it he was for on are as with his they at be this have from or one had ' +
  'by word but not what all were we when your can said there use an each which she do how their if will ' +
  'up other about out many then them these so some her would make like him into time has look two more ' +
  'write go see number no way could people my than first water been call who its now find long down day ' +
  'did get come made may part over new sound take only little work know place year live me back give most ' +
  'very after thing our just name good man think say great where help through much before line right too ' +
  'mean old any same tell boy follow came want show also around form three small set put end does another ' +
  'well large must big even such because turn here why ask went men read need land different home us move'
).split(' ');

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * One request to send. Every field is always present (null or 0 when unused) so that every spec has
 * one shape on the measuring loop.
 */
export interface PromptSpec {
  /** The prompt of a completions request, or the one user message of a chat request. */
  prompt: string;
  /** A session's chat turns; when set, a chat request sends them in place of `prompt`. */
  messages: ChatMessage[] | null;
  outputTokens: number;
  /** Prompt tokens asked for (synthetic) or counted by the run's tokenizer; null for dataset prompts without one. */
  targetPromptTokens: number | null;
  /**
   * Words of the prompt as sent, and of those the ones that repeat an earlier prompt's start: the
   * reuse share's units. A shared-prefix workload with a tokenizer counts its tokens here instead.
   */
  promptWords: number;
  reusableWords: number;
  /** The session and turn (0 = first) of session workloads; null otherwise. */
  sessionId: number | null;
  turnIndex: number | null;
  /** Keep the streamed answer's text (the next turn sends it back). */
  collectAnswer: boolean;
}

/** A spec of a single-turn request (no session, no answer kept). */
export function singleTurnSpec(
  prompt: string,
  outputTokens: number,
  targetPromptTokens: number | null,
  promptWords: number,
  reusableWords: number,
): PromptSpec {
  return {
    prompt,
    messages: null,
    outputTokens,
    targetPromptTokens,
    promptWords,
    reusableWords,
    sessionId: null,
    turnIndex: null,
    collectAnswer: false,
  };
}

/** Tokens as teapot counts them without a tokenizer (and as the simulator does): whitespace-separated words. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** A prompt of exactly `words` one-token words. */
export function syntheticPrompt(words: number, random: Random): string {
  const parts = new Array<string>(words);
  for (let i = 0; i < words; i++) parts[i] = ONE_TOKEN_WORDS[Math.floor(random() * ONE_TOKEN_WORDS.length)];
  return parts.join(' ');
}
