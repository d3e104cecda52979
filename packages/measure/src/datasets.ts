import { deriveSeed, mulberry32 } from './random';
import { countWords } from './prompt-spec';
import type {
  Conversation,
  ConversationTurn,
  DatasetFilters,
  DatasetFormat,
  DatasetSource,
  ProfileWorkload,
  Workload,
} from '@teapot/run-definitions';

/** Limits of a dataset, documented in packages/measure/README.md ("Datasets"). */
export const DATASET_LIMITS = {
  /** One message's text, in characters: a prompt past it is a mistake, not a workload. */
  messageChars: 200_000,
  /** Messages in one conversation. */
  messages: 1_000,
  /** Conversations in one file. */
  conversations: 100_000,
} as const;

/** A dataset that cannot be read: `where` names the line (JSONL) or item (JSON array) and the field. */
export class DatasetError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
  }
}

type Role = 'system' | 'user' | 'assistant';

const SHAREGPT_ROLES: Record<string, Role> = {
  system: 'system',
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  chatgpt: 'assistant',
  bard: 'assistant',
  bing: 'assistant',
  model: 'assistant',
};
const OPENAI_ROLES: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The records of a file: a JSON array (items named by index) or JSON lines (named by line number). */
function records(text: string): Array<{ where: string; value: unknown }> {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      throw new DatasetError('JSON array', `not valid JSON (${(err as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw new DatasetError('JSON array', 'expected an array of conversations');
    return parsed.map((value, i) => ({ where: `item ${i}`, value }));
  }
  const out: Array<{ where: string; value: unknown }> = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `line ${i + 1}`;
    try {
      out.push({ where, value: JSON.parse(line) });
    } catch (err) {
      throw new DatasetError(where, `not valid JSON (${(err as Error).message})`);
    }
  }
  return out;
}

function messageText(content: unknown, where: string, field: string): string {
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const parts = content.filter(
      (part): part is { type: 'text'; text: string } =>
        isObject(part) && part.type === 'text' && typeof part.text === 'string',
    );
    if (parts.length !== content.length)
      throw new DatasetError(where, `${field}: only text parts ({"type":"text","text":...}) can be sent`);
    text = parts.map((part) => part.text).join('\n');
  } else throw new DatasetError(where, `${field} must be a string`);
  if (text.trim() === '') throw new DatasetError(where, `${field} is empty`);
  if (text.length > DATASET_LIMITS.messageChars)
    throw new DatasetError(
      where,
      `${field} has ${text.length} characters, over the limit of ${DATASET_LIMITS.messageChars}`,
    );
  return text;
}

/**
 * A conversation from its messages in order: an optional system message first, then user turns each
 * followed by the answer, if any; consecutive messages of one role are joined (one turn).
 */
function conversationOf(
  messages: Array<{ role: Role; text: string; field: string }>,
  where: string,
): Conversation {
  const conversation: Conversation = { turns: [] };
  let current: ConversationTurn | null = null;
  for (const { role, text, field } of messages) {
    if (role === 'system') {
      if (conversation.turns.length > 0 || conversation.system !== undefined)
        throw new DatasetError(where, `${field}: a system message may only open the conversation`);
      conversation.system = text;
    } else if (role === 'user') {
      if (current !== null && current.assistant === undefined) current.user += `\n${text}`;
      else {
        current = { user: text };
        conversation.turns.push(current);
      }
    } else {
      if (current === null)
        throw new DatasetError(where, `${field}: an answer before any user message (the user speaks first)`);
      current.assistant = current.assistant === undefined ? text : `${current.assistant}\n${text}`;
    }
  }
  if (conversation.turns.length === 0) throw new DatasetError(where, 'no user turn');
  return conversation;
}

function messagesOf(
  value: unknown,
  where: string,
  format: DatasetFormat,
): Array<{ role: Role; text: string; field: string }> {
  const key = format === 'sharegpt' ? 'conversations' : 'messages';
  if (!isObject(value) || !Array.isArray(value[key]))
    throw new DatasetError(where, `expected an object with a "${key}" array`);
  const list = value[key] as unknown[];
  if (list.length > DATASET_LIMITS.messages)
    throw new DatasetError(
      where,
      `${key} has ${list.length} messages, over the limit of ${DATASET_LIMITS.messages}`,
    );
  const [roleKey, textKey, roles] =
    format === 'sharegpt'
      ? (['from', 'value', SHAREGPT_ROLES] as const)
      : (['role', 'content', OPENAI_ROLES] as const);
  return list.map((message, i) => {
    const field = `${key}[${i}]`;
    if (!isObject(message)) throw new DatasetError(where, `${field} must be an object`);
    const name = message[roleKey];
    const role = typeof name === 'string' ? roles[name.toLowerCase()] : undefined;
    if (role === undefined)
      throw new DatasetError(
        where,
        `${field}.${roleKey}: unknown role ${JSON.stringify(name)} (expected one of ${Object.keys(roles).join(', ')})`,
      );
    return { role, text: messageText(message[textKey], where, `${field}.${textKey}`), field };
  });
}

/**
 * Every conversation of a ShareGPT (`conversations` of `from`/`value`) or OpenAI chat (`messages` of
 * `role`/`content`) file, JSON lines or one JSON array, every turn kept. Throws a DatasetError naming
 * the line and field of the first thing that does not fit.
 */
export function parseConversations(text: string, format: DatasetFormat): Conversation[] {
  if (format !== 'sharegpt' && format !== 'openai')
    throw new DatasetError('format', `unknown dataset format ${JSON.stringify(format)} (sharegpt or openai)`);
  const items = records(text);
  if (items.length === 0) throw new DatasetError('file', 'no conversations');
  if (items.length > DATASET_LIMITS.conversations)
    throw new DatasetError(
      'file',
      `${items.length} conversations, over the limit of ${DATASET_LIMITS.conversations}`,
    );
  return items.map(({ where, value }) => conversationOf(messagesOf(value, where, format), where));
}

/**
 * The turns of `conversation` that pass the filters: cut before the first turn whose prompt (the
 * history so far plus its message) exceeds maxInputTokens or whose answer exceeds maxOutputTokens.
 */
function filteredTurns(conversation: Conversation, filters: DatasetFilters): ConversationTurn[] {
  const maxTurns = filters.maxTurns ?? Infinity;
  const turns: ConversationTurn[] = [];
  let history = conversation.system === undefined ? 0 : countWords(conversation.system);
  for (const turn of conversation.turns) {
    if (turns.length >= maxTurns) break;
    const prompt = history + countWords(turn.user);
    const answer = turn.assistant === undefined ? 0 : countWords(turn.assistant);
    if (prompt > (filters.maxInputTokens ?? Infinity) || answer > (filters.maxOutputTokens ?? Infinity))
      break;
    if (turns.length === 0 && prompt < (filters.minInputTokens ?? 0)) break;
    turns.push(turn);
    history = prompt + answer;
  }
  return turns;
}

/**
 * The conversations a run sends: filtered, then `sample` of them drawn without replacement in a seeded
 * order (all of them, shuffled, without `sample`). Lengths are whitespace-separated words.
 */
export function selectConversations(
  conversations: Conversation[],
  filters: DatasetFilters,
  seed: number,
): { conversations: Conversation[]; kept: number } {
  const kept: Conversation[] = [];
  for (const conversation of conversations) {
    const turns = filteredTurns(conversation, filters);
    if (turns.length > 0) kept.push({ ...conversation, turns });
  }
  const random = mulberry32(deriveSeed(filters.sampleSeed ?? seed, 7));
  for (let i = kept.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kept[i], kept[j]] = [kept[j], kept[i]];
  }
  return { conversations: kept.slice(0, filters.sample ?? kept.length), kept: kept.length };
}

/** A dataset file read, filtered and sampled, with what the run reports about it. */
export function loadDataset(
  text: string,
  options: { format: DatasetFormat; sha256: string; filters: DatasetFilters; seed: number },
): { conversations: Conversation[]; source: DatasetSource } {
  const all = parseConversations(text, options.format);
  const { conversations, kept } = selectConversations(all, options.filters, options.seed);
  if (conversations.length === 0)
    throw new DatasetError('filters', `none of the ${all.length} conversations passes the length filters`);
  const turns = conversations.reduce((sum, c) => sum + c.turns.length, 0);
  return {
    conversations,
    source: {
      sha256: options.sha256,
      format: options.format,
      read: all.length,
      kept,
      sampled: conversations.length,
      turns,
    },
  };
}

type DatasetAssetWorkload = Extract<ProfileWorkload, { kind: 'dataset-asset' }>;

/** The run's workload from a profile's `dataset-asset`: the named file (`text`) read into conversations. */
export function conversationsFromAsset(
  workload: DatasetAssetWorkload,
  text: string | null,
  seed: number,
): Workload {
  if (text === null) throw new DatasetError('workload.sha256', `dataset ${workload.sha256} is not stored`);
  const { sha256, format, outputTokens, thinkTime, actualAnswers, ...filters } = workload;
  const { conversations, source } = loadDataset(text, {
    format,
    sha256,
    filters: withoutKind(filters),
    seed,
  });
  return { kind: 'conversations', conversations, source, outputTokens, thinkTime, actualAnswers };
}

function withoutKind(filters: DatasetFilters & { kind: string }): DatasetFilters {
  const { kind: _kind, ...rest } = filters;
  return rest;
}
