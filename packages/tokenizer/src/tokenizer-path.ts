import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { readTokenizerFile, TokenizerFileError, type TokenizerSource } from './model-tokenizer';

/** Longest tokenizer path a profile may name. */
export const MAX_TOKENIZER_PATH_LENGTH = 512;

/**
 * Why `name` cannot name a tokenizer file under the configured directory, or null: it must be a
 * relative path with no `..` segment (and no backslash, drive or NUL), so a profile cannot reach a
 * file outside the directory whoever runs teapot chose to expose.
 */
export function invalidTokenizerPath(name: string): string | null {
  if (name.trim() === '') return 'must not be empty';
  if (name.length > MAX_TOKENIZER_PATH_LENGTH)
    return `must be at most ${MAX_TOKENIZER_PATH_LENGTH} characters`;
  if (/[\0\\]/.test(name) || /^[A-Za-z]:/.test(name)) return 'must be a relative path with / separators';
  if (isAbsolute(name)) return 'must be relative to the tokenizer directory (TEAPOT_TOKENIZER_DIR)';
  if (name.split('/').includes('..')) return 'must not leave the tokenizer directory (no ".." segment)';
  return null;
}

/**
 * Reads tokenizer `name` under `dir` (TEAPOT_TOKENIZER_DIR). Checks the path as invalidTokenizerPath
 * does, then again after symbolic links are followed, so a link cannot lead out of the directory;
 * throws TokenizerFileError. The source is named by its path under the directory.
 */
export function readTokenizerIn(dir: string, name: string): TokenizerSource {
  const invalid = invalidTokenizerPath(name);
  if (invalid !== null) throw new TokenizerFileError(`tokenizer "${name}" ${invalid}`);
  let root: string;
  let file: string;
  try {
    root = realpathSync(dir);
    file = realpathSync(resolve(root, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new TokenizerFileError(`cannot read tokenizer "${name}" under the tokenizer directory: ${code}`);
  }
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..' + sep) || inside === '..' || isAbsolute(inside)) {
    throw new TokenizerFileError(`tokenizer "${name}" leads out of the tokenizer directory`);
  }
  return { ...readTokenizerFile(file), name };
}
