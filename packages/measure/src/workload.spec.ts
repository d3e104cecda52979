import { parseJsonlPrompts, promptSource, syntheticPrompts } from './workload';

describe('syntheticPrompts', () => {
  it('makes prompts of exactly the target number of words, reproducibly from the seed', () => {
    const a = syntheticPrompts({ inputTokens: 128, outputTokens: 64, seed: 5 });
    const b = syntheticPrompts({ inputTokens: 128, outputTokens: 64, seed: 5 });
    const c = syntheticPrompts({ inputTokens: 128, outputTokens: 64, seed: 6 });
    const first = a();
    expect(first.prompt.split(/\s+/).length).toBe(128);
    expect(first).toMatchObject({ outputTokens: 64, targetPromptTokens: 128 });
    expect(b()).toEqual(first);
    expect(c().prompt).not.toBe(first.prompt);
    expect(a().prompt).not.toBe(first.prompt);
  });

  it('uses only short lowercase words, so each is one token in common tokenizers', () => {
    const words = new Set(
      syntheticPrompts({ inputTokens: 5000, outputTokens: 1, seed: 1 })().prompt.split(' '),
    );
    for (const word of words) expect(word).toMatch(/^[a-z]{1,9}$/);
    expect(words.size).toBeGreaterThan(100);
  });

  it('spreads lengths within the jitter and keeps the recorded target equal to the words sent', () => {
    const next = syntheticPrompts({ inputTokens: 100, outputTokens: 50, lengthJitter: 0.2, seed: 3 });
    const inputs = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const p = next();
      expect(p.targetPromptTokens).toBe(p.prompt.split(' ').length);
      expect(p.targetPromptTokens).toBeGreaterThanOrEqual(80);
      expect(p.targetPromptTokens).toBeLessThanOrEqual(120);
      expect(p.outputTokens).toBeGreaterThanOrEqual(40);
      expect(p.outputTokens).toBeLessThanOrEqual(60);
      inputs.add(p.targetPromptTokens!);
    }
    expect(inputs.size).toBeGreaterThan(10);
  });
});

describe('parseJsonlPrompts', () => {
  it('reads prompts and optional output lengths, skipping blank lines', () => {
    const text = '{"prompt":"a b c"}\r\n\n{"prompt":"d","output_tokens":12}\n{"prompt":"e","max_tokens":3}\n';
    expect(parseJsonlPrompts(text)).toEqual([
      { prompt: 'a b c' },
      { prompt: 'd', outputTokens: 12 },
      { prompt: 'e', outputTokens: 3 },
    ]);
  });

  it('names the line that is wrong', () => {
    expect(() => parseJsonlPrompts('{"prompt":"a"}\nnot json')).toThrow(/line 2: not JSON/);
    expect(() => parseJsonlPrompts('{"text":"a"}')).toThrow(/line 1: "prompt" must be/);
    expect(() => parseJsonlPrompts('[1]')).toThrow(/line 1: expected an object/);
    expect(() => parseJsonlPrompts('{"prompt":"a","outputTokens":-1}')).toThrow(/line 1: output length/);
  });
});

describe('promptSource', () => {
  it('cycles a dataset in order with its default output length', () => {
    const next = promptSource(
      { kind: 'dataset', prompts: [{ prompt: 'x', outputTokens: 3 }, { prompt: 'y' }], outputTokens: 9 },
      0,
    );
    expect(
      [next(), next(), next()].map(({ prompt, outputTokens, targetPromptTokens }) => ({
        prompt,
        outputTokens,
        targetPromptTokens,
      })),
    ).toEqual([
      { prompt: 'x', outputTokens: 3, targetPromptTokens: null },
      { prompt: 'y', outputTokens: 9, targetPromptTokens: null },
      { prompt: 'x', outputTokens: 3, targetPromptTokens: null },
    ]);
    // the third repeats the first word for word: a prefix cache could reuse all of it
    expect(next().reusableWords).toBe(1);
  });
});
