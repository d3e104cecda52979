import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DATASET_LIMITS,
  DatasetError,
  loadDataset,
  parseConversations,
  selectConversations,
} from './datasets';

const SHIPPED = readFileSync(join(__dirname, '..', 'datasets', 'teapot-chats.sharegpt.jsonl'), 'utf8');

describe('ShareGPT and OpenAI datasets', () => {
  it('keep every turn of every conversation of the shipped dataset', () => {
    const conversations = parseConversations(SHIPPED, 'sharegpt');
    expect(conversations).toHaveLength(32);
    expect(conversations.reduce((n, c) => n + c.turns.length, 0)).toBe(80);
    expect(conversations[0].system).toBeDefined();
    expect(conversations[0].turns[2]).toEqual({
      user: 'Can I reuse the leaves?',
      assistant: 'Yes, good green tea gives two or three infusions. Add thirty seconds to each one.',
    });
  });

  it('read ShareGPT as a JSON array and OpenAI chat lines alike', () => {
    const array = JSON.stringify([
      {
        conversations: [
          { from: 'human', value: 'a b' },
          { from: 'gpt', value: 'c' },
          { from: 'human', value: 'd' },
        ],
      },
    ]);
    expect(parseConversations(array, 'sharegpt')).toEqual([
      { turns: [{ user: 'a b', assistant: 'c' }, { user: 'd' }] },
    ]);
    const openai = [
      JSON.stringify({
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: [{ type: 'text', text: 'x' }] },
          { role: 'user', content: 'y' },
          { role: 'assistant', content: 'z' },
        ],
      }),
      '',
    ].join('\n');
    expect(parseConversations(openai, 'openai')).toEqual([
      { system: 's', turns: [{ user: 'x\ny', assistant: 'z' }] },
    ]);
  });

  it('name the line and field of what does not fit', () => {
    const good = JSON.stringify({ conversations: [{ from: 'human', value: 'hi' }] });
    const sharegpt = (...lines: unknown[]) =>
      parseConversations(
        lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'),
        'sharegpt',
      );
    expect(() => sharegpt(good, '{not json')).toThrow(/^line 2: not valid JSON/);
    expect(() => sharegpt(good, '', { messages: [] })).toThrow(
      /^line 3: expected an object with a "conversations" array$/,
    );
    expect(() => sharegpt({ conversations: [{ from: 'gpt', value: 'x' }] })).toThrow(
      /^line 1: conversations\[0\]: an answer before any user message/,
    );
    expect(() => sharegpt({ conversations: [{ from: 'system', value: 'x' }] })).toThrow(
      /^line 1: no user turn$/,
    );
    expect(() => sharegpt({ conversations: [{ from: 'human', value: '  ' }] })).toThrow(
      /^line 1: conversations\[0\]\.value is empty$/,
    );
    const openai = (content: string, role = 'user') =>
      parseConversations(JSON.stringify({ messages: [{ role, content }] }), 'openai');
    expect(() => openai('w '.repeat(DATASET_LIMITS.messageChars))).toThrow(
      /^line 1: messages\[0\]\.content has 400000 characters, over the limit of 200000/,
    );
    expect(() => openai('x', 'tool')).toThrow(/^line 1: messages\[0\]\.role: unknown role "tool"/);
    expect(() => parseConversations(good, 'csv' as 'openai')).toThrow(DatasetError);
    expect(() => parseConversations(good, 'csv' as 'openai')).toThrow(/unknown dataset format "csv"/);
    expect(() => parseConversations('\n\n', 'openai')).toThrow(/^file: no conversations$/);
  });

  it('cut conversations at the length filters and sample them with a seed', () => {
    const all = parseConversations(SHIPPED, 'sharegpt');
    const { conversations, kept } = selectConversations(all, { maxInputTokens: 40, maxTurns: 2 }, 1);
    expect(kept).toBe(conversations.length);
    for (const c of conversations) {
      expect(c.turns.length).toBeLessThanOrEqual(2);
      let history = c.system === undefined ? 0 : c.system.split(/\s+/).length;
      for (const turn of c.turns) {
        expect(history + turn.user.split(/\s+/).length).toBeLessThanOrEqual(40);
        history += turn.user.split(/\s+/).length + (turn.assistant ?? '').split(/\s+/).length;
      }
    }
    const a = selectConversations(all, { sample: 5 }, 3).conversations;
    expect(a).toHaveLength(5);
    expect(selectConversations(all, { sample: 5 }, 3).conversations).toEqual(a);
    expect(selectConversations(all, { sample: 5, sampleSeed: 3 }, 99).conversations).toEqual(a);
    expect(selectConversations(all, { sample: 5 }, 4).conversations).not.toEqual(a);
    expect(() =>
      loadDataset(SHIPPED, { format: 'sharegpt', sha256: 'x', filters: { maxInputTokens: 1 }, seed: 0 }),
    ).toThrow(/^filters: none of the 32 conversations passes the length filters$/);
    const { source } = loadDataset(SHIPPED, {
      format: 'sharegpt',
      sha256: 'abc',
      filters: { sample: 4 },
      seed: 0,
    });
    expect(source).toEqual(expect.objectContaining({ sha256: 'abc', read: 32, kept: 32, sampled: 4 }));
  });
});
