import { countWords } from './prompt-spec';
import { mulberry32 } from './random';
import { RunTokenizer } from './run-tokenizer';
import { SessionPlan, type SessionTurn, type TurnOutcome } from './sessions';
import { interleavedPrefixOrder, sharedPrefixPrompts } from './shared-prefix';
import type { Workload } from './types';
import { TEST_TOKENIZER } from '@teapot/testing-base';
import { readTokenizerFile } from '@teapot/tokenizer';

type MultiTurn = Extract<Workload, { kind: 'multi-turn' }>;

const multiTurn: MultiTurn = { kind: 'multi-turn', turns: 3, inputTokens: 5, outputTokens: 4 };

/** Every turn of one session, each answered ok with `produced` tokens (and `answer` as its text). */
function turns(plan: SessionPlan, produced = 4, answer: string | null = null): SessionTurn[] {
  const session = plan.start();
  const out: SessionTurn[] = [];
  let previous: TurnOutcome | null = null;
  for (;;) {
    const turn = session.next(previous);
    if (turn === null) return out;
    out.push(turn);
    previous = { ok: true, outputTokens: produced, answer };
  }
}

describe('multi-turn sessions', () => {
  it('resend the whole conversation: each prompt starts with the previous one plus its answer', () => {
    const [t0, t1, t2] = turns(new SessionPlan(multiTurn, 1, 'completions'));
    expect(t0.spec.prompt.length).toBeGreaterThan(0);
    expect(t1.spec.prompt.startsWith(`${t0.spec.prompt}\n`)).toBe(true);
    expect(t2.spec.prompt.startsWith(`${t1.spec.prompt}\n`)).toBe(true);
    // previous prompt + a synthetic answer of the produced 4 words + 5 new words
    expect([t0, t1, t2].map((t) => countWords(t.spec.prompt))).toEqual([5, 14, 23]);
    expect([t0, t1, t2].map((t) => t.spec.promptWords)).toEqual([5, 14, 23]);
    expect([t0, t1, t2].map((t) => t.spec.reusableWords)).toEqual([0, 5, 14]);
    expect([t0, t1, t2].map((t) => [t.spec.sessionId, t.spec.turnIndex])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
    ]);
  });

  it('send chat turns as messages, the model answer included when asked for', () => {
    const plan = new SessionPlan({ ...multiTurn, turns: 2, actualAnswers: true }, 1, 'chat');
    const [t0, t1] = turns(plan, 2, ' kettle steam');
    expect(t0.spec.messages?.map((m) => m.role)).toEqual(['user']);
    expect(t0.spec.collectAnswer).toBe(true);
    expect(t1.spec.collectAnswer).toBe(false); // the last turn's answer is sent nowhere
    expect(t1.spec.messages).toEqual([
      t0.spec.messages![0],
      { role: 'assistant', content: ' kettle steam' },
      expect.objectContaining({ role: 'user' }),
    ]);
  });

  it('end a session at its first failed turn', () => {
    const session = new SessionPlan(multiTurn, 1, 'chat').start();
    expect(session.next(null)).not.toBeNull();
    expect(session.next({ ok: false, outputTokens: 0, answer: null })).toBeNull();
  });

  it('are reproducible from the seed and the session id, whatever order answers come in', () => {
    const a = new SessionPlan(multiTurn, 9, 'completions');
    const b = new SessionPlan(multiTurn, 9, 'completions');
    const a0 = turns(a);
    const a1 = turns(a);
    expect(turns(b)).toEqual(a0);
    expect(turns(b)).toEqual(a1);
    expect(a1[0].spec.prompt).not.toEqual(a0[0].spec.prompt);
    expect(turns(new SessionPlan(multiTurn, 10, 'completions'))[0].spec.prompt).not.toEqual(
      a0[0].spec.prompt,
    );
  });

  it('draw think times from the seed: constant, or exponential with the mean asked', () => {
    const constant = turns(
      new SessionPlan({ ...multiTurn, thinkTime: { distribution: 'constant', meanMs: 250 } }, 1, 'chat'),
    );
    expect(constant.map((t) => t.thinkMs)).toEqual([0, 250, 250]);
    const plan = new SessionPlan(
      { ...multiTurn, turns: 2, thinkTime: { distribution: 'exponential', meanMs: 100 } },
      3,
      'chat',
    );
    const pauses = Array.from({ length: 4000 }, () => turns(plan)[1].thinkMs);
    const mean = pauses.reduce((s, x) => s + x, 0) / pauses.length;
    expect(mean).toBeGreaterThan(90);
    expect(mean).toBeLessThan(110);
  });

  it('share one system prompt across sessions: its words are reusable from the second session on', () => {
    const plan = new SessionPlan({ ...multiTurn, systemTokens: 20 }, 1, 'chat');
    const first = turns(plan);
    const second = turns(plan);
    expect(first[0].spec.messages![0]).toEqual(second[0].spec.messages![0]);
    expect(first[0].spec.reusableWords).toBe(0);
    expect(second[0].spec.reusableWords).toBe(20);
    expect(second[0].spec.promptWords).toBe(25);
  });
});

describe('dataset conversations', () => {
  const conversations = [
    { system: 'be brief', turns: [{ user: 'hello there', assistant: 'hi you' }, { user: 'and then' }] },
    { turns: [{ user: 'one two three', outputTokens: 9 }] },
  ];

  it('send every turn, answering with the recorded answer and its length', () => {
    const plan = new SessionPlan({ kind: 'conversations', conversations }, 1, 'chat');
    const [t0, t1] = turns(plan, 7);
    expect(t0.spec.outputTokens).toBe(2);
    expect(t1.spec.outputTokens).toBe(256);
    expect(t1.spec.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'hi you' },
      { role: 'user', content: 'and then' },
    ]);
    expect(turns(plan)[0].spec.outputTokens).toBe(9);
  });

  it('count a conversation sent again as reusable from its start', () => {
    const plan = new SessionPlan({ kind: 'conversations', conversations }, 1, 'chat');
    turns(plan);
    turns(plan);
    const again = turns(plan);
    expect(again[0].spec.reusableWords).toBe(again[0].spec.promptWords);
    expect(again[1].spec.reusableWords).toBe(again[0].spec.promptWords);
  });
});

describe('shared prefixes', () => {
  const workload = {
    kind: 'shared-prefix' as const,
    prefixes: 4,
    prefixTokens: 32,
    requestsPerPrefix: 5,
    suffixTokens: 8,
    outputTokens: 4,
  };

  it('use each prefix M times, never twice in a row, in a seeded order', () => {
    for (let seed = 0; seed < 50; seed++) {
      const order = interleavedPrefixOrder(4, 5, mulberry32(seed));
      expect(order).toHaveLength(20);
      for (let p = 0; p < 4; p++) expect(order.filter((x) => x === p)).toHaveLength(5);
      for (let i = 1; i < order.length; i++) expect(order[i]).not.toBe(order[i - 1]);
      expect(interleavedPrefixOrder(4, 5, mulberry32(seed))).toEqual(order);
    }
    expect(interleavedPrefixOrder(4, 5, mulberry32(1))).not.toEqual(
      interleavedPrefixOrder(4, 5, mulberry32(2)),
    );
  });

  it('build prompts that share a prefix word for word, and count reuse exactly', () => {
    const next = sharedPrefixPrompts(workload, 3);
    const specs = Array.from({ length: 20 }, next);
    const prefixes = new Set(specs.map((s) => s.prompt.split(' ').slice(0, 32).join(' ')));
    expect(prefixes.size).toBe(4);
    expect(new Set(specs.map((s) => s.prompt)).size).toBe(20);
    for (const spec of specs) expect(countWords(spec.prompt)).toBe(40);
    const reusable = specs.reduce((sum, s) => sum + s.reusableWords, 0);
    // each prefix's first use is a miss: (M - 1) x P x L of P x M x (L + S)
    expect(reusable).toBe(4 * 4 * 32);
    // a new generation draws new prefixes, with misses again
    const more = Array.from({ length: 20 }, next);
    expect(more.filter((s) => s.reusableWords === 0)).toHaveLength(4);
    expect(more.some((s) => prefixes.has(s.prompt.split(' ').slice(0, 32).join(' ')))).toBe(false);
    expect(Array.from({ length: 20 }, sharedPrefixPrompts(workload, 3))).toEqual(specs);
  });

  it('with a tokenizer: prefix and suffix are its one-token words, counted in its tokens', () => {
    const tokenizer = RunTokenizer.load(readTokenizerFile(TEST_TOKENIZER));
    const specs = Array.from({ length: 20 }, sharedPrefixPrompts(workload, 3, tokenizer));
    const vocabulary = new Set(tokenizer.words.words.map((word) => word.trim()));
    for (const spec of specs) {
      expect(tokenizer.count(spec.prompt)).toBe(40);
      expect(spec.targetPromptTokens).toBe(40);
      expect(
        spec.prompt
          .trim()
          .split(' ')
          .every((word) => vocabulary.has(word)),
      ).toBe(true);
    }
    expect(specs.reduce((sum, s) => sum + s.reusableWords, 0)).toBe(4 * 4 * 32);
    // drawn from the tokenizer's words, not the word list used without one
    expect(specs.map((s) => s.prompt)).not.toEqual(
      Array.from({ length: 20 }, sharedPrefixPrompts(workload, 3)).map((s) => s.prompt),
    );
  });
});
