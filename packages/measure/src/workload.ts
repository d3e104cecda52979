import { deriveSeed, mulberry32, type Random } from './random';
import type { RunTokenizer } from './run-tokenizer';
import type { Workload } from './types';
import { countWords, singleTurnSpec, syntheticPrompt, type PromptSpec } from './prompt-spec';
import { sharedPrefixPrompts } from './shared-prefix';

export { countWords, syntheticPrompt, type ChatMessage, type PromptSpec } from './prompt-spec';

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
  const spec = promptOfLength(random, tokenizer);
  return () => {
    const inputTokens = jittered(options.inputTokens, jitter, random);
    return spec(inputTokens, jittered(options.outputTokens, jitter, random));
  };
}

/** A single-turn spec of a random prompt of `inputTokens`: exact in the tokenizer's tokens, else in words. */
function promptOfLength(random: Random, tokenizer?: RunTokenizer) {
  const text = tokenizer
    ? (tokens: number) => tokenizer.words.prompt(tokens, random)
    : (tokens: number) => syntheticPrompt(tokens, random);
  return (inputTokens: number, outputTokens: number): PromptSpec => {
    const prompt = text(inputTokens);
    return singleTurnSpec(prompt, outputTokens, inputTokens, countWords(prompt), 0);
  };
}

type TraceWorkload = Extract<Workload, { kind: 'trace' }>;

/** The prompt of a trace's request `i` (cycling past its end): its input length, max_tokens its output length. */
export function tracePrompts(workload: TraceWorkload, seed: number, tokenizer?: RunTokenizer) {
  const spec = promptOfLength(mulberry32(deriveSeed(seed, 1)), tokenizer);
  const { requests } = workload;
  if (requests.length === 0) throw new RangeError('trace workload has no requests');
  return (i: number): PromptSpec => {
    const request = requests[i % requests.length];
    return spec(request.inputTokens, request.outputTokens);
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

export const DEFAULT_DATASET_OUTPUT_TOKENS = 256;

/**
 * The run's single-turn prompts in issue order: synthetic from the seed, shared prefixes, a trace's, or the
 * dataset cycled (a prompt sent again counts as reusable in full). Session workloads: sessions.ts. A
 * dataset's prompts are counted with the tokenizer here, once, before the first request: never on the
 * send path.
 */
export function promptSource(workload: Workload, seed: number, tokenizer?: RunTokenizer): () => PromptSpec {
  if (workload.kind === 'synthetic') return syntheticPrompts({ ...workload, seed }, tokenizer);
  if (workload.kind === 'shared-prefix') return sharedPrefixPrompts(workload, seed, tokenizer);
  if (workload.kind === 'trace') {
    // in trace order; an open loop asks for each arrival's own (openLoopSchedule)
    const prompt = tracePrompts(workload, seed, tokenizer);
    let next = 0;
    return () => prompt(next++);
  }
  if (workload.kind !== 'dataset') throw new TypeError(`a ${workload.kind} workload is sent in sessions`);
  const { prompts } = workload;
  if (prompts.length === 0) throw new RangeError('dataset workload has no prompts');
  const words = prompts.map((item) => countWords(item.prompt));
  const counts = prompts.map((item) => (tokenizer ? tokenizer.count(item.prompt) : null));
  let next = 0;
  return () => {
    const at = next % prompts.length;
    const item = prompts[at];
    const repeat = next++ >= prompts.length;
    return singleTurnSpec(
      item.prompt,
      item.outputTokens ?? workload.outputTokens ?? DEFAULT_DATASET_OUTPUT_TOKENS,
      counts[at],
      words[at],
      repeat ? words[at] : 0,
    );
  };
}
