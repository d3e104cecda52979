import { countWords } from './vocabulary';

export type ApiKind = 'chat' | 'completions';

/** What the simulator needs from a validated /v1/chat/completions or /v1/completions body. */
export interface CompletionRequest {
  api: ApiKind;
  model: string | undefined;
  promptTokens: number;
  stream: boolean;
  includeUsage: boolean;
  /** vLLM's rule: only when include_usage is set too. */
  continuousUsage: boolean;
  maxTokens: number;
  minTokens: number;
  ignoreEos: boolean;
}

/** An OpenAI-style error response: status, message and the offending parameter. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly type = 'invalid_request_error',
    readonly code: string | number | null = null,
  ) {
    super(message);
  }
}

/** OpenAI's legacy /v1/completions default, which vLLM keeps. */
const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

/** `count`: prompt tokens of a text (words, or the tokenizer the simulator was given). */
export function parseCompletionRequest(
  api: ApiKind,
  body: unknown,
  maxModelLen: number,
  count: (text: string) => number = countWords,
): CompletionRequest {
  if (!isObject(body)) throw new ApiError(400, 'The request body must be a JSON object.');
  const promptTokens =
    api === 'chat' ? countChatPrompt(body.messages, count) : countCompletionPrompt(body.prompt, count);
  const model = optional(body, 'model', 'string');
  const stream = optional(body, 'stream', 'boolean') ?? false;
  const options = body.stream_options;
  let includeUsage = false;
  let continuousUsage = false;
  if (options !== undefined && options !== null) {
    if (!stream)
      throw new ApiError(400, 'Stream options can only be defined when `stream=True`.', 'stream_options');
    if (!isObject(options)) throw new ApiError(400, 'stream_options must be an object.', 'stream_options');
    includeUsage = optional(options, 'include_usage', 'boolean', 'stream_options.') ?? false;
    continuousUsage =
      includeUsage && (optional(options, 'continuous_usage_stats', 'boolean', 'stream_options.') ?? false);
  }
  const n = optional(body, 'n', 'number');
  if (n !== undefined && n !== 1) throw new ApiError(400, 'The simulator supports only n=1.', 'n');
  const requestedMax =
    (api === 'chat' ? optionalInteger(body, 'max_completion_tokens', 1) : undefined) ??
    optionalInteger(body, 'max_tokens', 1);
  const minTokens = optionalInteger(body, 'min_tokens', 0) ?? 0;
  const ignoreEos = optional(body, 'ignore_eos', 'boolean') ?? false;
  const room = maxModelLen - promptTokens;
  const maxTokens =
    requestedMax ?? (api === 'completions' ? Math.min(COMPLETIONS_DEFAULT_MAX_TOKENS, room) : room);
  if (maxTokens < 1 || promptTokens + maxTokens > maxModelLen) {
    throw new ApiError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
        `${promptTokens + Math.max(maxTokens, 1)} tokens (${promptTokens} in the messages, ` +
        `${Math.max(maxTokens, 1)} in the completion). Please reduce the length of the messages or completion.`,
      requestedMax === undefined ? 'messages' : 'max_tokens',
    );
  }
  if (minTokens > maxTokens) {
    throw new ApiError(
      400,
      `min_tokens must be less than or equal to max_tokens=${maxTokens}, got ${minTokens}.`,
      'min_tokens',
    );
  }
  return { api, model, promptTokens, stream, includeUsage, continuousUsage, maxTokens, minTokens, ignoreEos };
}

/**
 * Chat prompt tokens: the tokens of every message's text content (text parts of array contents), each
 * counted alone. No chat template is applied, so no role or BOS token is counted.
 */
function countChatPrompt(messages: unknown, count: (text: string) => number): number {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ApiError(400, '`messages` must be a non-empty array of messages.', 'messages');
  }
  let tokens = 0;
  messages.forEach((message: unknown, i) => {
    if (!isObject(message) || typeof message.role !== 'string') {
      throw new ApiError(400, `messages[${i}] must be an object with a string role.`, `messages[${i}]`);
    }
    const content = message.content;
    if (typeof content === 'string') {
      tokens += count(content);
    } else if (Array.isArray(content)) {
      for (const part of content) {
        if (isObject(part) && part.type === 'text' && typeof part.text === 'string')
          tokens += count(part.text);
      }
    } else if (content !== null && content !== undefined) {
      throw new ApiError(
        400,
        `messages[${i}].content must be a string, an array of parts or null.`,
        `messages[${i}].content`,
      );
    }
  });
  return tokens;
}

/** Completion prompt tokens: tokens of a string (or a one-string array), or the length of a token-id array. */
function countCompletionPrompt(prompt: unknown, count: (text: string) => number): number {
  if (typeof prompt === 'string') return count(prompt);
  if (Array.isArray(prompt)) {
    if (prompt.length > 0 && prompt.every((t) => Number.isInteger(t) && t >= 0)) return prompt.length;
    if (prompt.length === 1 && typeof prompt[0] === 'string') return count(prompt[0]);
    if (
      prompt.length === 1 &&
      Array.isArray(prompt[0]) &&
      prompt[0].every((t: unknown) => Number.isInteger(t))
    ) {
      return prompt[0].length;
    }
  }
  throw new ApiError(
    400,
    '`prompt` must be a string or an array of token ids (one prompt per request).',
    'prompt',
  );
}

type TypeName = 'string' | 'boolean' | 'number';
type TypeOf<T extends TypeName> = T extends 'string' ? string : T extends 'boolean' ? boolean : number;

function optional<T extends TypeName>(
  object: Record<string, unknown>,
  key: string,
  type: T,
  prefix = '',
): TypeOf<T> | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== type) throw new ApiError(400, `${prefix}${key} must be a ${type}.`, prefix + key);
  return value as TypeOf<T>;
}

function optionalInteger(object: Record<string, unknown>, key: string, min: number): number | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ApiError(400, `${key} must be an integer >= ${min}, got ${JSON.stringify(value)}.`, key);
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
