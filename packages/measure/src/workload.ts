import { deriveSeed, mulberry32, type Random } from './random';
import type { RunTokenizer } from './run-tokenizer';
import type { Workload } from './types';

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

export interface PromptSpec {
  prompt: string;
  outputTokens: number;
  /** Prompt tokens asked for (synthetic) or counted by the run's tokenizer; null for dataset prompts without one. */
  targetPromptTokens: number | null;
}

export interface SyntheticPromptOptions {
  inputTokens: number;
  outputTokens: number;
  /** Relative spread of both lengths, uniform in [1 - j, 1 + j]; 0 = all equal. */
  lengthJitter?: number;
  seed?: number;
}

function jittered(target: number, jitter: number, random: Random): number {
  if (jitter <= 0) return target;
  return Math.max(1, Math.round(target * (1 + jitter * (2 * random() - 1))));
}

/** A prompt of exactly `words` one-token words. */
export function syntheticPrompt(words: number, random: Random): string {
  const parts = new Array<string>(words);
  for (let i = 0; i < words; i++) parts[i] = ONE_TOKEN_WORDS[Math.floor(random() * ONE_TOKEN_WORDS.length)];
  return parts.join(' ');
}

/**
 * A reproducible sequence of synthetic prompts: the same seed gives the same prompts and lengths. With
 * a tokenizer, each prompt is exactly its length in that tokenizer's tokens (PromptWords).
 */
export function syntheticPrompts(
  options: SyntheticPromptOptions,
  tokenizer?: RunTokenizer,
): () => PromptSpec {
  const random = mulberry32(deriveSeed(options.seed ?? 0, 1));
  const jitter = options.lengthJitter ?? 0;
  const text = tokenizer
    ? (tokens: number) => tokenizer.words.prompt(tokens, random)
    : (tokens: number) => syntheticPrompt(tokens, random);
  return () => {
    const inputTokens = jittered(options.inputTokens, jitter, random);
    const outputTokens = jittered(options.outputTokens, jitter, random);
    return { prompt: text(inputTokens), outputTokens, targetPromptTokens: inputTokens };
  };
}

export interface DatasetPrompt {
  prompt: string;
  outputTokens?: number;
}

/**
 * Prompts from JSONL text (reading the file is the caller's job): one object per line with a string
 * `prompt` and optionally an output length as `outputTokens`, `output_tokens` or `max_tokens`. Blank
 * lines are skipped; anything else that does not fit throws an error naming the line.
 */
export function parseJsonlPrompts(text: string): DatasetPrompt[] {
  const prompts: DatasetPrompt[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `JSONL line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`${where}: expected an object with a "prompt" string`);
    }
    const row = value as Record<string, unknown>;
    if (typeof row.prompt !== 'string' || row.prompt === '') {
      throw new Error(`${where}: "prompt" must be a non-empty string`);
    }
    const output = row.outputTokens ?? row.output_tokens ?? row.max_tokens;
    if (output !== undefined && !(Number.isInteger(output) && (output as number) > 0)) {
      throw new Error(`${where}: output length must be a positive integer, got ${JSON.stringify(output)}`);
    }
    prompts.push(
      output === undefined ? { prompt: row.prompt } : { prompt: row.prompt, outputTokens: output as number },
    );
  }
  return prompts;
}

const DEFAULT_DATASET_OUTPUT_TOKENS = 256;

/**
 * The run's prompts in issue order: synthetic from the seed, or the dataset cycled. A dataset's prompts
 * are counted with the tokenizer here, once, before the first request: never on the send path.
 */
export function promptSource(workload: Workload, seed: number, tokenizer?: RunTokenizer): () => PromptSpec {
  if (workload.kind === 'synthetic') return syntheticPrompts({ ...workload, seed }, tokenizer);
  const { prompts } = workload;
  if (prompts.length === 0) throw new RangeError('dataset workload has no prompts');
  const counts = prompts.map((item) => (tokenizer ? tokenizer.count(item.prompt) : null));
  let next = 0;
  return () => {
    const at = next++ % prompts.length;
    const item = prompts[at];
    return {
      prompt: item.prompt,
      outputTokens: item.outputTokens ?? workload.outputTokens ?? DEFAULT_DATASET_OUTPUT_TOKENS,
      targetPromptTokens: counts[at],
    };
  };
}
