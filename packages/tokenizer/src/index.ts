export {
  MAX_TOKENIZER_BYTES,
  ModelTokenizer,
  readTokenizerFile,
  TokenizerFileError,
  type TokenizerIdentity,
  type TokenizerSource,
} from './model-tokenizer';
export { PromptWords, type Draw } from './prompt-words';
