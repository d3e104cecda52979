import { MAX_USAGE_TOKENS } from './tokens';
import { chunk, runAgainst, type Step } from './test-support/byte-server';
import { TRANSPORTS } from './types';

/**
 * Endpoints that answer 200 with something that is not a measurement: counts that are no counts,
 * streams without a token, heads no HTTP client should read. Each must end as an endpoint error of
 * its own class, never as a success with made-up figures and never as a failure to connect.
 */

const DONE = 'data: [DONE]\n\n';
const withUsage = (usage: Record<string, unknown>, delta: Record<string, unknown> = { content: 'a' }) =>
  `data: ${JSON.stringify({ id: 'r1', choices: [{ index: 0, delta, finish_reason: 'stop' }], usage })}\n\n`;

describe('usage counts that are no token counts', () => {
  it.each<[string, Step[]]>([
    ['an absurd completion count (1e12)', [withUsage({ prompt_tokens: 4, completion_tokens: 1e12 }), DONE]],
    ['a negative completion count', [withUsage({ prompt_tokens: 4, completion_tokens: -100 }), DONE]],
    ['a fractional completion count', [withUsage({ prompt_tokens: 4, completion_tokens: 2.5 }), DONE]],
    ['a negative prompt count', [withUsage({ prompt_tokens: -1, completion_tokens: 1 }), DONE]],
    ['a count one past the bound', [withUsage({ completion_tokens: MAX_USAGE_TOKENS + 1 }), DONE]],
    [
      'a count in a usage-only chunk after the text',
      [chunk({ content: 'a' }, { finish_reason: 'stop' }), withUsage({ completion_tokens: -3 }, {}), DONE],
    ],
  ])('refuses %s as invalid_usage, with no negative or absurd figure anywhere', async (_what, steps) => {
    const { result } = await runAgainst(() => ({ steps }), { requests: 2 });
    expect(result.summary.errorsByClass).toEqual({ invalid_usage: 2 });
    expect(result.summary.requests).toMatchObject({ succeeded: 0, failed: 2 });
    for (const record of result.requests) {
      expect(record.outcome).toBe('error');
      expect(record.error!.message).toMatch(/^usage\.(completion|prompt)_tokens is .*: not a token count/);
      expect(record.outputTokens).toBeGreaterThanOrEqual(0);
      expect(record.outputTokens).toBeLessThanOrEqual(MAX_USAGE_TOKENS);
    }
    expect(result.summary.outputTokens).toBe(0);
    expect(result.summary.outputTokensPerS).toBe(0);
  });

  it('keeps a plausible count as reported', async () => {
    const { result } = await runAgainst(() => ({
      steps: [withUsage({ completion_tokens: 300 }), DONE],
    }));
    expect(result.requests[0].outcome).toBe('ok');
    expect(result.requests[0].outputTokens).toBe(300);
  });
});

describe('streams that complete without a token', () => {
  const eventCompletion = (data: Record<string, unknown>) =>
    `event: completion\ndata: ${JSON.stringify(data)}\n\n`;
  it.each<[string, Step[]]>([
    [
      'every event named `completion`',
      [eventCompletion({ choices: [{ delta: { content: 'a' } }] }), eventCompletion({ choices: [] }), DONE],
    ],
    [
      'choices always empty',
      [
        `data: ${JSON.stringify({ id: 'r1', choices: [] })}\n\n`,
        `data: ${JSON.stringify({ id: 'r1', choices: [], usage: { prompt_tokens: 4, completion_tokens: 3 } })}\n\n`,
        DONE,
      ],
    ],
    [
      'text always null',
      [
        `data: ${JSON.stringify({ id: 'r1', choices: [{ text: null, finish_reason: null }] })}\n\n`,
        `data: ${JSON.stringify({ id: 'r1', choices: [{ text: null, finish_reason: 'stop' }] })}\n\n`,
      ],
    ],
    ['nothing but [DONE]', [DONE]],
  ])('fails %s as no_tokens, in the error rate', async (_what, steps) => {
    const { result } = await runAgainst(() => ({ steps }), { requests: 2 });
    expect(result.summary.errorsByClass).toEqual({ no_tokens: 2 });
    expect(result.summary.requests).toMatchObject({ succeeded: 0, failed: 2 });
    expect(result.requests[0].error!.message).toMatch(/^the stream completed without a token/);
  });

  it('still takes a stream whose only output is a tool call', async () => {
    const { result } = await runAgainst(() => ({
      steps: [
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, { finish_reason: 'tool_calls' }),
        DONE,
      ],
    }));
    expect(result.requests[0].outcome).toBe('ok');
    expect(result.requests[0].outputTokens).toBe(1);
  });
});

describe('a response head no client should read', () => {
  it.each(TRANSPORTS)(
    '%s: headers over 64 KiB are a malformed response, not a connection failure',
    async (transport) => {
      const { result } = await runAgainst(
        () => ({
          headers: { 'x-flood': 'a'.repeat(70 * 1024) },
          steps: [chunk({ content: 'a' }, { finish_reason: 'stop' }), DONE],
        }),
        { transport, requests: 2 },
      );
      expect(result.summary.errorsByClass).toEqual({ malformed_stream: 2 });
      expect(result.requests[0].error!.message).toMatch(/header/i);
      // the endpoint answered: no pause for an unreachable endpoint
      expect(result.connectBackoff.outages).toBe(0);
    },
  );
});
