import type { TokenizerIdentity } from '@teapot/tokenizer';
import type { PromptTokenSource, RequestRecord, RunSummary } from './types';

/**
 * A run's prompt tokens and where each request's count came from: the server's usage first, else the
 * tokenizer's count of the prompt text, else (a synthetic prompt's word count) an estimate that is
 * reported but not summed. With both, their difference is what the server adds (chat template, BOS).
 */
export class PromptCounts {
  private tokens = 0;
  private readonly sources: Partial<Record<PromptTokenSource, number>> = {};
  private overheadMin = Infinity;
  private overheadMax = -Infinity;

  constructor(private readonly tokenizer: TokenizerIdentity | null) {}

  add(record: RequestRecord): void {
    const counted = this.tokenizer !== null ? record.targetPromptTokens : null;
    let source: PromptTokenSource | null = null;
    if (record.promptTokens !== null) {
      source = 'usage';
      this.tokens += record.promptTokens;
      if (counted !== null) {
        const overhead = record.promptTokens - counted;
        if (overhead < this.overheadMin) this.overheadMin = overhead;
        if (overhead > this.overheadMax) this.overheadMax = overhead;
      }
    } else if (counted !== null) {
      source = 'tokenizer';
      this.tokens += counted;
    } else if (record.targetPromptTokens !== null) {
      source = 'words';
    }
    if (source !== null) this.sources[source] = (this.sources[source] ?? 0) + 1;
  }

  summary(): Pick<RunSummary, 'promptTokens' | 'promptTokenSources' | 'promptOverheadTokens'> {
    return {
      promptTokens: this.tokens,
      promptTokenSources: this.sources,
      ...(this.overheadMin <= this.overheadMax
        ? { promptOverheadTokens: { min: this.overheadMin, max: this.overheadMax } }
        : {}),
    };
  }
}
