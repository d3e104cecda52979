import { tokenCountFacts } from './token-counts';

describe('tokenCountFacts', () => {
  it('says where each count came from and which tokenizer counted', () => {
    const sha256 = 'ab'.repeat(32);
    expect(
      tokenCountFacts({
        tokenSources: { usage_delta: 60, tokenizer: 2 },
        promptTokenSources: { usage: 60, tokenizer: 2 },
        promptOverheadTokens: { min: 27, max: 29 },
        tokenizer: { name: 'llama/tokenizer.json', sha256, sizeBytes: 9_084_490 },
      }),
    ).toEqual([
      'Output tokens counted by server usage on every chunk: 60 requests · the tokenizer (no usage from the server): 2 requests',
      'Prompt tokens counted by server usage: 60 requests · the tokenizer (no usage from the server): 2 requests',
      `Tokenizer llama/tokenizer.json, sha256 ${sha256}; the server adds 27–29 prompt tokens (chat template)`,
    ]);
  });

  it('marks estimates, and shows nothing for a run not measured', () => {
    expect(tokenCountFacts({ tokenSources: { chunk: 3 }, promptTokenSources: { words: 3 } })).toEqual([
      'Output tokens counted by one per chunk (an estimate: no usage, no tokenizer): 3 requests',
      'Prompt tokens counted by word count (an estimate): 3 requests',
    ]);
    expect(tokenCountFacts(null)).toEqual([]);
  });
});
