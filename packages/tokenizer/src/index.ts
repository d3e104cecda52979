export {
  MAX_TOKENIZER_BYTES,
  ModelTokenizer,
  readTokenizerFile,
  TokenizerFileError,
  type TokenizerIdentity,
  type TokenizerSource,
} from './model-tokenizer';
export { PromptWords, type Draw } from './prompt-words';
export { invalidTokenizerPath, MAX_TOKENIZER_PATH_LENGTH, readTokenizerIn } from './tokenizer-path';
