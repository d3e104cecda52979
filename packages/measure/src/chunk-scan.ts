import { CHUNK_KIND, type ChunkKind } from './types';

/**
 * What a RequestRecord keeps of one streamed completion chunk. Filled by `scanChunk` straight from
 * the bytes, or by `chunkFieldsFromJson` from a parsed object; both must agree exactly.
 */
export class ChunkFields {
  kind: ChunkKind = CHUNK_KIND.empty;
  /** `choices[0].finish_reason` when it is a string. */
  finishReason: string | null = null;
  /** `id` when it is a string; the scanner decodes it only when `wantId` is set. */
  id: string | null = null;
  /** `usage.completion_tokens` when it is a number. */
  completionTokens: number | null = null;
  /** `usage.prompt_tokens` when it is a number. */
  promptTokens: number | null = null;

  reset(): void {
    this.kind = CHUNK_KIND.empty;
    this.finishReason = null;
    this.id = null;
    this.completionTokens = null;
    this.promptTokens = null;
  }
}

interface ChoiceShape {
  delta?: {
    content?: unknown;
    reasoning_content?: unknown;
    reasoning?: unknown;
    tool_calls?: unknown;
  } | null;
  text?: unknown;
  finish_reason?: unknown;
}

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

function kindOf(content: boolean, reasoning: boolean, toolCalls: boolean, text: boolean): ChunkKind {
  if (content) return CHUNK_KIND.content;
  if (reasoning) return CHUNK_KIND.reasoning;
  if (toolCalls) return CHUNK_KIND.toolCall;
  return text ? CHUNK_KIND.content : CHUNK_KIND.empty;
}

/** The reference extraction, from a parsed JSON object (any shape a server may send). */
export function chunkFieldsFromJson(chunk: Record<string, unknown>, out: ChunkFields): void {
  out.reset();
  const first: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  // a choice that is not an object (e.g. null) carries nothing
  const choice = typeof first === 'object' && first !== null ? (first as ChoiceShape) : undefined;
  if (choice !== undefined) {
    const delta = choice.delta;
    const has = (value: unknown) => (delta ? nonEmptyString(value) : false);
    out.kind = kindOf(
      has(delta?.content),
      has(delta?.reasoning_content) || has(delta?.reasoning),
      !!delta && Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0,
      nonEmptyString(choice.text),
    );
    if (typeof choice.finish_reason === 'string') out.finishReason = choice.finish_reason;
  }
  if (typeof chunk.id === 'string') out.id = chunk.id;
  const usage = chunk.usage as { completion_tokens?: unknown; prompt_tokens?: unknown } | null | undefined;
  if (usage) {
    if (typeof usage.completion_tokens === 'number') out.completionTokens = usage.completion_tokens;
    if (typeof usage.prompt_tokens === 'number') out.promptTokens = usage.prompt_tokens;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_DEPTH = 32;
/** Integers with more digits may not be exact when summed digit by digit: left to JSON.parse. */
const MAX_EXACT_DIGITS = 15;

const KEY = {
  id: Buffer.from('id'),
  choices: Buffer.from('choices'),
  usage: Buffer.from('usage'),
  error: Buffer.from('error'),
  delta: Buffer.from('delta'),
  text: Buffer.from('text'),
  finishReason: Buffer.from('finish_reason'),
  content: Buffer.from('content'),
  reasoningContent: Buffer.from('reasoning_content'),
  reasoning: Buffer.from('reasoning'),
  toolCalls: Buffer.from('tool_calls'),
  completionTokens: Buffer.from('completion_tokens'),
  promptTokens: Buffer.from('prompt_tokens'),
};

/** Thrown inside the scanner when the bytes need JSON.parse: invalid, unusual, or out of its scope. */
const DECLINE = new Error('decline');

/**
 * A validating single-pass scan of one chunk's JSON bytes that extracts exactly what
 * `chunkFieldsFromJson(JSON.parse(text))` would, without building strings or objects. It declines
 * (returns false, for the caller to JSON.parse) on anything invalid or unusual: escapes in a key or in
 * a string it must return, duplicate keys it reads, usage numbers that are not plain integers, an
 * `error` key, a non-object first choice, deep nesting.
 */
export function scanChunk(
  bytes: Uint8Array,
  start: number,
  end: number,
  wantId: boolean,
  out: ChunkFields,
): boolean {
  out.reset();
  const scan = scanner;
  scan.b = bytes;
  scan.p = start;
  scan.end = end;
  scan.wantId = wantId;
  scan.out = out;
  try {
    scan.ws();
    if (scan.peek() !== OPEN_OBJECT) return false;
    scan.top();
    scan.ws();
    return scan.p === end;
  } catch (err) {
    if (err === DECLINE) return false;
    throw err;
  } finally {
    scan.b = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);

class Scanner {
  b: Uint8Array = EMPTY;
  p = 0;
  end = 0;
  wantId = false;
  out = new ChunkFields();
  /** Bounds of the last string's content, and whether it held an escape. */
  strStart = 0;
  strEnd = 0;
  strEscaped = false;

  peek(): number {
    if (this.p >= this.end) throw DECLINE;
    return this.b[this.p];
  }

  expect(byte: number): void {
    if (this.p >= this.end || this.b[this.p] !== byte) throw DECLINE;
    this.p++;
  }

  ws(): void {
    const { b, end } = this;
    let p = this.p;
    while (p < end) {
      const c = b[p];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.p = p;
  }

  /** `"..."`: validates and records its content bounds. */
  string(): void {
    const { b, end } = this;
    let p = this.p;
    if (p >= end || b[p] !== QUOTE) throw DECLINE;
    p++;
    this.strStart = p;
    let escaped = false;
    for (;;) {
      if (p >= end) throw DECLINE;
      const c = b[p];
      if (c === QUOTE) break;
      if (c < 0x20) throw DECLINE;
      if (c === BACKSLASH) {
        escaped = true;
        const e = p + 1 < end ? b[p + 1] : 0;
        if (e === 0x75) {
          for (let k = p + 2; k < p + 6; k++) if (k >= end || !isHex(b[k])) throw DECLINE;
          p += 6;
          continue;
        }
        if (
          e !== QUOTE &&
          e !== BACKSLASH &&
          e !== 0x2f &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        )
          throw DECLINE;
        p += 2;
        continue;
      }
      p++;
    }
    this.strEnd = p;
    this.strEscaped = escaped;
    this.p = p + 1;
  }

  /** The string just scanned, which must be free of escapes to be decoded as is. */
  decoded(): string {
    if (this.strEscaped) throw DECLINE;
    const b = this.b;
    const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return buf.toString('utf8', this.strStart, this.strEnd);
  }

  /** A key: the bit of `keys` it equals (0 for none); escaped keys decline. */
  key(keys: Uint8Array[]): number {
    this.string();
    if (this.strEscaped) throw DECLINE;
    const { b, strStart } = this;
    const length = this.strEnd - strStart;
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i];
      if (name.length !== length) continue;
      let k = 0;
      while (k < length && b[strStart + k] === name[k]) k++;
      if (k === length) return 1 << i;
    }
    return 0;
  }

  /** A number: validates it and returns its value when a plain non-negative integer, else -1. */
  number(): number {
    const { b, end } = this;
    let p = this.p;
    let plain = true;
    if (b[p] === MINUS) {
      plain = false;
      p++;
    }
    const digitsStart = p;
    if (p >= end || !isDigit(b[p])) throw DECLINE;
    if (b[p] === ZERO) p++;
    else while (p < end && isDigit(b[p])) p++;
    let value = -1;
    if (plain && p - digitsStart <= MAX_EXACT_DIGITS) {
      value = 0;
      for (let k = digitsStart; k < p; k++) value = value * 10 + (b[k] - ZERO);
    }
    if (p < end && b[p] === DOT) {
      p++;
      if (p >= end || !isDigit(b[p])) throw DECLINE;
      while (p < end && isDigit(b[p])) p++;
      value = -1;
    }
    if (p < end && (b[p] === 0x65 || b[p] === 0x45)) {
      p++;
      if (p < end && (b[p] === 0x2b || b[p] === MINUS)) p++;
      if (p >= end || !isDigit(b[p])) throw DECLINE;
      while (p < end && isDigit(b[p])) p++;
      value = -1;
    }
    this.p = p;
    return value;
  }

  literal(word: string): void {
    const { b } = this;
    if (this.p + word.length > this.end) throw DECLINE;
    for (let k = 0; k < word.length; k++) if (b[this.p + k] !== word.charCodeAt(k)) throw DECLINE;
    this.p += word.length;
  }

  /** Any JSON value, validated and skipped; returns its first byte. */
  skip(depth: number): number {
    const c = this.peek();
    if (c === QUOTE) this.string();
    else if (c === OPEN_OBJECT) this.object(depth + 1, PLACE.other);
    else if (c === OPEN_ARRAY) this.array(depth + 1, PLACE.other);
    else if (c === 0x74) this.literal('true');
    else if (c === 0x66) this.literal('false');
    else if (c === 0x6e) this.literal('null');
    else if (c === MINUS || isDigit(c)) this.number();
    else throw DECLINE;
    return c;
  }

  /** `{...}` at `place`, reading each member's value; duplicate known keys decline. */
  object(depth: number, place: Place): void {
    if (depth > MAX_DEPTH) throw DECLINE;
    this.expect(OPEN_OBJECT);
    this.ws();
    if (this.peek() === CLOSE_OBJECT) {
      this.p++;
      return;
    }
    const keys = KEYS_AT[place];
    let seen = 0;
    for (;;) {
      const bit = keys.length === 0 ? 0 : this.key(keys);
      if (keys.length === 0) this.string();
      if ((seen & bit) !== 0) throw DECLINE;
      seen |= bit;
      this.ws();
      this.expect(COLON);
      this.ws();
      if (place === PLACE.top) this.topMember(bit, depth);
      else if (place === PLACE.choice) this.choiceMember(bit, depth);
      else if (place === PLACE.delta) this.deltaMember(bit, depth);
      else if (place === PLACE.usage) this.usageMember(bit, depth);
      else this.skip(depth);
      this.ws();
      const c = this.peek();
      this.p++;
      if (c === CLOSE_OBJECT) return;
      if (c !== COMMA) throw DECLINE;
      this.ws();
    }
  }

  /** `[...]`, calling `element(index, depth)` with the element's first byte under the cursor. */
  array(depth: number, place: Place): void {
    if (depth > MAX_DEPTH) throw DECLINE;
    this.expect(OPEN_ARRAY);
    this.ws();
    if (this.peek() === CLOSE_ARRAY) {
      this.p++;
      this.arrayLength = 0;
      return;
    }
    for (let index = 0; ; index++) {
      if (place === PLACE.choices && index === 0) this.firstChoice(depth);
      else this.skip(depth);
      this.ws();
      const c = this.peek();
      this.p++;
      if (c === CLOSE_ARRAY) {
        this.arrayLength = index + 1;
        return;
      }
      if (c !== COMMA) throw DECLINE;
      this.ws();
    }
  }

  // Per-chunk state of the choice being read.
  content = false;
  reasoning = false;
  toolCalls = false;
  text = false;
  /** Elements of the array scanned last. */
  arrayLength = 0;

  top(): void {
    this.content = this.reasoning = this.toolCalls = this.text = false;
    this.object(1, PLACE.top);
    this.out.kind = kindOf(this.content, this.reasoning, this.toolCalls, this.text);
  }

  topMember(bit: number, depth: number): void {
    if (bit === TOP.id) {
      if (this.skip(depth) === QUOTE && this.wantId) this.out.id = this.decoded();
    } else if (bit === TOP.choices) {
      if (this.peek() === OPEN_ARRAY) this.array(depth + 1, PLACE.choices);
      else this.skip(depth);
    } else if (bit === TOP.usage) {
      if (this.peek() === OPEN_OBJECT) this.object(depth + 1, PLACE.usage);
      else this.skip(depth);
    } else if (bit === TOP.error) {
      throw DECLINE;
    } else {
      this.skip(depth);
    }
  }

  firstChoice(depth: number): void {
    if (this.peek() === OPEN_OBJECT) this.object(depth + 1, PLACE.choice);
    else throw DECLINE;
  }

  choiceMember(bit: number, depth: number): void {
    if (bit === CHOICE.delta) {
      if (this.peek() === OPEN_OBJECT) this.object(depth + 1, PLACE.delta);
      else this.skip(depth);
    } else if (bit === CHOICE.text) {
      this.text = this.nonEmptyString(depth);
    } else if (bit === CHOICE.finishReason) {
      if (this.skip(depth) === QUOTE) this.out.finishReason = this.decoded();
    } else {
      this.skip(depth);
    }
  }

  deltaMember(bit: number, depth: number): void {
    if (bit === DELTA.content) {
      this.content = this.nonEmptyString(depth);
    } else if (bit === DELTA.reasoningContent || bit === DELTA.reasoning) {
      if (this.nonEmptyString(depth)) this.reasoning = true;
    } else if (bit === DELTA.toolCalls) {
      if (this.peek() === OPEN_ARRAY) {
        this.array(depth + 1, PLACE.other);
        this.toolCalls = this.arrayLength > 0;
      } else {
        this.skip(depth);
      }
    } else {
      this.skip(depth);
    }
  }

  usageMember(bit: number, depth: number): void {
    if (bit === 0) {
      this.skip(depth);
      return;
    }
    const c = this.peek();
    if (c !== MINUS && !isDigit(c)) {
      this.skip(depth);
      return;
    }
    const value = this.number();
    if (value < 0) throw DECLINE;
    if (bit === USAGE.completionTokens) this.out.completionTokens = value;
    else this.out.promptTokens = value;
  }

  /** A string of at least one character (any string value, escaped or not, decodes to as many or more). */
  nonEmptyString(depth: number): boolean {
    if (this.skip(depth) !== QUOTE) return false;
    return this.strEnd > this.strStart;
  }
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Where in the chunk a value sits: decides which keys are read (a switch, not callbacks, keeps calls monomorphic). */
const PLACE = { other: 0, top: 1, choices: 2, choice: 3, delta: 4, usage: 5 } as const;
type Place = (typeof PLACE)[keyof typeof PLACE];
const KEYS_AT: Uint8Array[][] = [
  [],
  [KEY.id, KEY.choices, KEY.usage, KEY.error],
  [],
  [KEY.delta, KEY.text, KEY.finishReason],
  [KEY.content, KEY.reasoningContent, KEY.reasoning, KEY.toolCalls],
  [KEY.completionTokens, KEY.promptTokens],
];
/** Bits of the keys above, in their order. */
const TOP = { id: 1, choices: 2, usage: 4, error: 8 };
const CHOICE = { delta: 1, text: 2, finishReason: 4 };
const DELTA = { content: 1, reasoningContent: 2, reasoning: 4, toolCalls: 8 };
const USAGE = { completionTokens: 1, promptTokens: 2 };

const scanner = new Scanner();
