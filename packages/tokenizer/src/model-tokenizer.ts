import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * The largest tokenizer.json accepted: well above today's large vocabularies (Llama 3 9 MB, Qwen 3
 * 11 MB, Gemma 3 33 MB), so a bigger file is a mistake or hostile, not a tokenizer.
 */
export const MAX_TOKENIZER_BYTES = 64 * 1024 * 1024;

const MODEL_TYPES = new Set(['BPE', 'WordPiece', 'Unigram', 'WordLevel']);

/** A file that is not a usable tokenizer.json; the message says what is wrong with it. */
export class TokenizerFileError extends Error {
  override readonly name = 'TokenizerFileError';
}

/** Which tokenizer counted: kept with a run so its counts can be traced to the exact file. */
export interface TokenizerIdentity {
  /** The file's name (no directory). */
  name: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
  sizeBytes: number;
}

/** A tokenizer.json's name and bytes: what crosses to a measuring thread, or comes from an upload. */
export interface TokenizerSource {
  /** The file's name (no directory), kept with what it counted. */
  name: string;
  bytes: Uint8Array;
}

/**
 * Reads a tokenizer.json file, refusing one over MAX_TOKENIZER_BYTES before reading it; throws
 * TokenizerFileError (a missing file included). Its content is checked when it is loaded.
 */
export function readTokenizerFile(path: string): TokenizerSource {
  const name = basename(path);
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'not a file' });
    size = stat.size;
  } catch (err) {
    throw new TokenizerFileError(
      `cannot read tokenizer ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (size > MAX_TOKENIZER_BYTES) {
    throw new TokenizerFileError(
      `${name} is ${size} bytes; a tokenizer.json may have at most ${MAX_TOKENIZER_BYTES}`,
    );
  }
  return { name, bytes: readFileSync(path) };
}

/** A model's tokenizer, loaded from its Hugging Face tokenizer.json. */
export class ModelTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    readonly identity: TokenizerIdentity,
  ) {}

  /** Loads a tokenizer.json from its bytes (an upload, or a file read elsewhere); throws TokenizerFileError. */
  static fromBytes(bytes: Uint8Array, name: string): ModelTokenizer {
    if (bytes.length > MAX_TOKENIZER_BYTES) {
      throw new TokenizerFileError(
        `${name} is ${bytes.length} bytes; a tokenizer.json may have at most ${MAX_TOKENIZER_BYTES}`,
      );
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
    } catch (err) {
      throw new TokenizerFileError(`${name} is not a tokenizer.json: not JSON (${(err as Error).message})`);
    }
    const model = isObject(json) ? json.model : undefined;
    if (
      !isObject(model) ||
      typeof model.type !== 'string' ||
      !MODEL_TYPES.has(model.type) ||
      (!isObject(model.vocab) && !Array.isArray(model.vocab))
    ) {
      throw new TokenizerFileError(
        `${name} is not a tokenizer.json: it needs a "model" with a "type" (${[...MODEL_TYPES].join(', ')}) and a "vocab"`,
      );
    }
    let tokenizer: Tokenizer;
    try {
      // the library wants tokenizer_config.json too; counting needs none of it (no template is applied)
      tokenizer = new Tokenizer(json as object, {});
      tokenizer.encode('teapot 1', { add_special_tokens: false });
    } catch (err) {
      throw new TokenizerFileError(`${name} is not a usable tokenizer.json: ${(err as Error).message}`);
    }
    return new ModelTokenizer(tokenizer, { name, sha256, sizeBytes: bytes.length });
  }

  /** Loads a tokenizer.json file (readTokenizerFile, then fromBytes). */
  static fromFile(path: string): ModelTokenizer {
    const { name, bytes } = readTokenizerFile(path);
    return ModelTokenizer.fromBytes(bytes, name);
  }

  /** The token ids of `text` alone: no BOS or other special token is added (see README, chat templates). */
  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  count(text: string): number {
    return this.encode(text).length;
  }

  decode(ids: number[]): string {
    return this.tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Every token's id and text, for picking words (see prompt-words.ts). */
  vocabulary(): Map<string, number> {
    return this.tokenizer.get_vocab();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
