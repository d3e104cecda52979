import { ModelTokenizer, PromptWords, type TokenizerIdentity, type TokenizerSource } from '@teapot/tokenizer';
import { spreadTokens } from './tokens';
import type { RequestRecord } from './types';

/** The run's tokenizer and the words its prompts are made of, loaded once before the first request. */
export class RunTokenizer {
  readonly identity: TokenizerIdentity;
  readonly words: PromptWords;

  constructor(private readonly tokenizer: ModelTokenizer) {
    this.identity = tokenizer.identity;
    this.words = new PromptWords(tokenizer);
  }

  static load(source: TokenizerSource): RunTokenizer {
    return new RunTokenizer(ModelTokenizer.fromBytes(source.bytes, source.name));
  }

  count(text: string): number {
    return this.tokenizer.count(text);
  }

  /**
   * Output tokens of the requests whose server reported no usage, counted from their streamed text
   * after the run (never on the measuring loop): `tokenSource` becomes `tokenizer`, the count is
   * spread over the token-carrying chunks (spreadTokens), and the text is dropped.
   */
  countOutputs(records: RequestRecord[]): void {
    for (const record of records) {
      const text = record.outputText;
      if (text === undefined) continue;
      delete record.outputText;
      const total = this.count(text);
      spreadTokens(record.chunkKinds, record.chunkTokens, total);
      record.outputTokens = total;
      record.tokenSource = 'tokenizer';
    }
  }
}
