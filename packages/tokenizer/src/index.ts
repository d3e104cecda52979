export {
  MAX_TOKENIZER_BYTES,
  ModelTokenizer,
  TokenizerFileError,
  type TokenizerIdentity,
} from './model-tokenizer';
export { PromptWords, type Draw } from './prompt-words';
