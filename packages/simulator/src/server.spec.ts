import { chunks, post, readStream } from '../test/sse-client';
import { groundTruthFromJson, type GroundTruthJson } from './ground-truth';
import { fetchGroundTruth } from './ground-truth-client';
import { startSimulator, type RunningSimulator } from './server';

type Chunk = Record<string, unknown> & {
  id: string;
  object: string;
  choices: Array<{
    delta?: { role?: string; content?: string };
    text?: string;
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
};

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'llama-8b',
  messages: [
    { role: 'system', content: 'You are a  teapot.' },
    { role: 'user', content: [{ type: 'text', text: 'short and stout' }] },
  ],
  stream: true,
  max_tokens: 6,
  ignore_eos: true,
  ...extra,
});

describe('the OpenAI-compatible server', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ quant: 'fp8', seed: 7, maxLagMs: 10_000 });
  });
  afterAll(() => sim.close());

  it('streams chat like vLLM: role chunk, content chunks, finish_reason, usage chunk, [DONE]', async () => {
    const result = await readStream(
      await post(`${sim.baseUrl}/chat/completions`, chat({ stream_options: { include_usage: true } })),
    );
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(result.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const all = chunks(result) as Chunk[];
    expect(all).toHaveLength(1 + 6 + 1);
    expect(all[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(all[0].object).toBe('chat.completion.chunk');
    const content = all.slice(1, 7);
    for (const c of content) expect(c.choices[0].delta?.content).toMatch(/^ [a-z]+$/);
    expect(content.map((c) => c.choices[0].finish_reason)).toEqual([null, null, null, null, null, 'length']);
    expect(all[7].choices).toEqual([]);
    // prompt tokens = whitespace-separated words of all message contents: 4 + 3
    expect(all[7].usage).toEqual({ prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 });
    expect(new Set(all.map((c) => c.id)).size).toBe(1);
    expect(result.headers.get('x-teapot-response-id')).toBe(all[0].id);
    for (const c of all.slice(0, 7)) expect(c.usage).toBeUndefined();
  });

  it('carries cumulative usage on every chunk with continuous_usage_stats', async () => {
    const result = await readStream(
      await post(
        `${sim.baseUrl}/chat/completions`,
        chat({ stream_options: { include_usage: true, continuous_usage_stats: true } }),
      ),
    );
    const all = chunks(result) as Chunk[];
    expect(all.map((c) => c.usage?.completion_tokens)).toEqual([0, 1, 2, 3, 4, 5, 6, 6]);
    expect(all.every((c) => c.usage?.prompt_tokens === 7)).toBe(true);
  });

  it('streams completions without a role chunk and omits usage unless asked', async () => {
    const result = await readStream(
      await post(`${sim.baseUrl}/completions`, {
        prompt: 'one two three',
        stream: true,
        max_tokens: 4,
        ignore_eos: true,
      }),
    );
    const all = chunks(result) as Chunk[];
    expect(all).toHaveLength(4);
    expect(all.every((c) => c.object === 'text_completion' && /^cmpl-/.test(c.id))).toBe(true);
    expect(all.map((c) => c.choices[0].text).every((t) => /^ [a-z]+$/.test(t ?? ''))).toBe(true);
    expect(all[3].choices[0].finish_reason).toBe('length');
  });

  it('answers non-streamed requests with one JSON body and usage', async () => {
    const res = await post(`${sim.baseUrl}/chat/completions`, chat({ stream: false, max_tokens: 5 }));
    const body = (await res.json()) as {
      id: string;
      object: string;
      choices: Array<{ message: { role: string; content: string }; finish_reason: string }>;
      usage: { completion_tokens: number; prompt_tokens: number };
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.role).toBe('assistant');
    expect(body.choices[0].message.content.trim().split(' ')).toHaveLength(5);
    expect(body.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5 });
    const truth = sim.groundTruth(body.id);
    expect(truth?.events.map((e) => [e.kind, e.tokens])).toEqual([['content', 5]]);
    const completion = await post(`${sim.baseUrl}/completions`, { prompt: [1, 2, 3, 4], ignore_eos: true });
    const json = (await completion.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    // token-id prompts count their ids; the completions default max_tokens is 16
    expect(json.usage).toEqual({ prompt_tokens: 4, completion_tokens: 16, total_tokens: 20 });
  });

  it('gives every response a unique id', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await post(`${sim.baseUrl}/completions`, { prompt: 'x', max_tokens: 1 });
        return ((await res.json()) as { id: string }).id;
      }),
    );
    expect(new Set(ids).size).toBe(20);
  });

  it('stops at a seeded EOS unless ignore_eos, and never before min_tokens', async () => {
    const eosSim = await startSimulator({ quant: 'fp8', meanOutputTokens: 3, seed: 3 });
    try {
      const lengths = async (extra: Record<string, unknown>) =>
        Promise.all(
          Array.from({ length: 12 }, async () => {
            const res = await post(`${eosSim.baseUrl}/completions`, {
              prompt: 'x',
              max_tokens: 40,
              ...extra,
            });
            const body = (await res.json()) as {
              usage: { completion_tokens: number };
              choices: Array<{ finish_reason: string }>;
            };
            return [body.usage.completion_tokens, body.choices[0].finish_reason] as const;
          }),
        );
      const natural = await lengths({});
      expect(natural.some(([n, reason]) => n < 40 && reason === 'stop')).toBe(true);
      expect(natural.every(([n, reason]) => (reason === 'stop' ? n < 40 || n === 40 : n === 40))).toBe(true);
      const forced = await lengths({ ignore_eos: true });
      expect(forced.every(([n, reason]) => n === 40 && reason === 'length')).toBe(true);
      const atLeast = await lengths({ min_tokens: 10 });
      expect(atLeast.every(([n]) => n >= 10)).toBe(true);
    } finally {
      await eosSim.close();
    }
  });

  it('records ground truth for every data event written, in order, on the monotonic clock', async () => {
    const res = await post(
      `${sim.baseUrl}/chat/completions`,
      chat({ max_tokens: 20, stream_options: { include_usage: true } }),
    );
    const result = await readStream(res);
    const id = result.headers.get('x-teapot-response-id')!;
    const truth = sim.groundTruth(id)!;
    const dataEvents = result.events.filter((e) => e.data !== '[DONE]');
    expect(truth.events).toHaveLength(dataEvents.length);
    expect(truth.events.map((e) => e.kind)).toEqual(['role', ...Array(20).fill('content'), 'usage']);
    expect(truth.events.reduce((sum, e) => sum + e.tokens, 0)).toBe(20);
    expect(truth).toMatchObject({
      id,
      model: 'llama-8b',
      promptTokens: 7,
      complete: true,
      finishReason: 'length',
    });
    for (let i = 0; i < truth.events.length; i++) {
      const event = truth.events[i];
      expect(event.writeStartNs).toBeGreaterThanOrEqual(event.scheduledNs);
      expect(event.writtenNs).toBeGreaterThan(event.writeStartNs);
      // the client in this process can only read an event after the server wrote it
      expect(dataEvents[i].receivedNs).toBeGreaterThanOrEqual(event.writtenNs);
      if (i > 0) {
        expect(event.writtenNs).toBeGreaterThan(truth.events[i - 1].writtenNs);
        expect(event.scheduledNs).toBeGreaterThanOrEqual(truth.events[i - 1].scheduledNs);
      }
    }
    const side = (await (await fetch(`${sim.baseUrl}/_teapot/ground-truth/${id}`)).json()) as GroundTruthJson;
    expect(typeof side.events[1].writtenNs).toBe('string');
    expect(groundTruthFromJson(side)).toEqual(truth);
    const bulk = (await (
      await post(`${sim.baseUrl}/_teapot/ground-truth`, { ids: [id, 'chatcmpl-unknown'] })
    ).json()) as {
      data: Array<GroundTruthJson | null>;
    };
    expect(bulk.data[0]).toEqual(side);
    expect(bulk.data[1]).toBeNull();
    expect((await fetch(`${sim.baseUrl}/_teapot/ground-truth/nope`)).status).toBe(404);
    const fetched = await fetchGroundTruth(sim.baseUrl, [id, 'chatcmpl-unknown']);
    expect([...fetched.keys()]).toEqual([id]);
    expect(fetched.get(id)).toEqual(truth);
  });

  it('bundles tokensPerChunk tokens per chunk and says so in the ground truth', async () => {
    const bundling = await startSimulator({ quant: 'fp8', tokensPerChunk: 3 });
    try {
      const result = await readStream(
        await post(
          `${bundling.baseUrl}/chat/completions`,
          chat({ max_tokens: 8, stream_options: { include_usage: true } }),
        ),
      );
      const content = (chunks(result) as Chunk[]).slice(1, -1).map((c) => c.choices[0].delta?.content ?? '');
      expect(content.map((text) => text.trim().split(' ').length)).toEqual([3, 3, 2]);
      const truth = bundling.groundTruth(result.headers.get('x-teapot-response-id')!)!;
      expect(truth.events.map((e) => e.tokens)).toEqual([0, 3, 3, 2, 0]);
    } finally {
      await bundling.close();
    }
  });

  it('serves /v1/models and /health', async () => {
    const models = (await (await fetch(`${sim.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['llama-8b']);
    const health = await fetch(sim.baseUrl.replace(/\/v1$/, '/health'));
    expect(health.status).toBe(200);
  });

  it.each([
    ['invalid JSON', '{"model":', null],
    ['no messages', { model: 'llama-8b' }, 'messages'],
    ['empty messages', { messages: [] }, 'messages'],
    ['a message without role', { messages: [{ content: 'hi' }] }, 'messages[0]'],
    ['max_tokens 0', chat({ max_tokens: 0 }), 'max_tokens'],
    ['max_tokens a string', chat({ max_tokens: '5' }), 'max_tokens'],
    ['stream not a boolean', chat({ stream: 'yes' }), 'stream'],
    [
      'stream_options without stream',
      chat({ stream: false, stream_options: { include_usage: true } }),
      'stream_options',
    ],
    ['n = 2', chat({ n: 2 }), 'n'],
    ['min_tokens above max_tokens', chat({ min_tokens: 10 }), 'min_tokens'],
    ['a prompt beyond the context', chat({ max_tokens: 200_000 }), 'max_tokens'],
  ])('refuses %s with an OpenAI-style 400', async (_name, body, param) => {
    const res = await post(`${sim.baseUrl}/chat/completions`, body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { message: string; type: string; param: string | null } };
    expect(json.error.message.length).toBeGreaterThan(0);
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.param).toBe(param);
  });

  it('refuses an unknown model with 404 and a bad completions prompt with 400', async () => {
    const res = await post(`${sim.baseUrl}/chat/completions`, chat({ model: 'gpt-5' }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/gpt-5/);
    expect((await post(`${sim.baseUrl}/completions`, { prompt: { text: 'x' } })).status).toBe(400);
    expect((await fetch(`${sim.baseUrl}/nothing`)).status).toBe(404);
  });

  it('frees the batch slot when a client goes away mid-stream', async () => {
    const controller = new AbortController();
    const response = await fetch(`${sim.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat({ max_tokens: 100_000 })),
      signal: controller.signal,
    });
    const id = response.headers.get('x-teapot-response-id')!;
    const wait = () => new Promise((resolve) => setTimeout(resolve, 5));
    while ((sim.groundTruth(id)?.events.length ?? 0) < 3) await wait();
    expect(sim.stats().engine.running).toBe(1);
    controller.abort();
    while (sim.stats().engine.running > 0 || sim.stats().openResponses > 0) await wait();
    expect(sim.groundTruth(id)?.complete).toBe(false);
    const stats = (await (await fetch(`${sim.baseUrl}/_teapot/stats`)).json()) as {
      engine: { steps: number };
    };
    expect(stats.engine.steps).toBeGreaterThan(3);
  });

  it('close() ends open streams and the server promptly', async () => {
    const other = await startSimulator({ quant: 'fp8' });
    const response = await post(`${other.baseUrl}/chat/completions`, chat({ max_tokens: 100_000 }));
    const reading = readStream(response);
    const id = response.headers.get('x-teapot-response-id')!;
    while ((other.groundTruth(id)?.events.length ?? 0) < 3)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await other.close();
    const result = await reading;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.events.length).toBeGreaterThan(2);
    expect(result.text).not.toContain('[DONE]');
    await expect(fetch(`${other.baseUrl}/models`)).rejects.toThrow();
  });
});
