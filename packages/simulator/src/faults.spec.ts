import { chunks, post, readStream } from '../test/sse-client';
import { startSimulator, type RunningSimulator } from './server';

const body = (extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content: 'pour me a cup' }],
  stream: true,
  max_tokens: 8,
  ignore_eos: true,
  stream_options: { include_usage: true },
  ...extra,
});

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code;
}

describe('fault modes', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ quant: 'fp8', maxLagMs: 10_000 });
  });
  afterAll(() => sim.close());

  const faulty = (mode: string, after?: number, extra?: Record<string, unknown>) =>
    post(`${sim.baseUrl}/chat/completions`, body(extra), {
      'x-teapot-fault': mode,
      ...(after === undefined ? {} : { 'x-teapot-fault-after': String(after) }),
    });

  it('refuse: destroys the socket without a response', async () => {
    const error = await faulty('refuse').then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('TypeError');
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(causeCode(error));
  });

  it('refuse for the whole simulator: a closed listener gives ECONNREFUSED, and it can listen again', async () => {
    const refusing = await startSimulator({ quant: 'fp8' });
    try {
      await refusing.stopAccepting();
      const error = await fetch(`${refusing.baseUrl}/models`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(causeCode(error)).toBe('ECONNREFUSED');
      await refusing.resumeAccepting();
      expect((await fetch(`${refusing.baseUrl}/models`)).status).toBe(200);
    } finally {
      await refusing.close();
    }
  });

  it('500: an OpenAI-style server error, recorded in the ground truth', async () => {
    const res = await faulty('500');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('InternalServerError');
    const truth = sim.groundTruth(res.headers.get('x-teapot-response-id')!);
    expect(truth).toMatchObject({ status: 500, events: [], complete: false, fault: { mode: '500' } });
    expect(truth?.fault?.firedNs).not.toBeNull();
  });

  it('429: rate limited with Retry-After', async () => {
    const res = await faulty('429');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('stall: stops sending mid-stream and keeps the connection open', async () => {
    const res = await faulty('stall', 3);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events = () => text.match(/^data: /gm)?.length ?? 0;
    while (events() < 4) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stalled stream ended');
      text += decoder.decode(value);
    }
    const next = await Promise.race([
      reader.read(),
      new Promise<'quiet'>((resolve) => setTimeout(() => resolve('quiet'), 400)),
    ]);
    expect(next).toBe('quiet');
    await reader.cancel();
    expect(events()).toBe(1 + 3);
    const truth = sim.groundTruth(res.headers.get('x-teapot-response-id')!)!;
    expect(truth.events.map((e) => e.kind)).toEqual(['role', 'content', 'content', 'content']);
    expect(truth.fault).toMatchObject({ mode: 'stall', afterTokens: 3 });
    expect(truth.fault?.firedNs).toBeGreaterThan(truth.events[3].writtenNs);
    expect(truth.complete).toBe(false);
  });

  it('malformed: one data line of broken JSON mid-stream, then the stream goes on', async () => {
    const result = await readStream(await faulty('malformed', 2));
    const data = result.events.map((e) => e.data);
    expect(() => JSON.parse(data[3])).toThrow();
    expect(data[data.length - 1]).toBe('[DONE]');
    const truth = sim.groundTruth(result.headers.get('x-teapot-response-id')!)!;
    expect(truth.events).toHaveLength(data.length - 1);
    expect(truth.events[3]).toMatchObject({ kind: 'error', tokens: 0 });
    expect(truth.events.reduce((sum, e) => sum + e.tokens, 0)).toBe(8);
  });

  it('truncate: ends the response mid-stream without [DONE]', async () => {
    const result = await readStream(await faulty('truncate', 4));
    expect(result.failed).toBe(false);
    expect(result.text).not.toContain('[DONE]');
    expect(chunks(result)).toHaveLength(1 + 4);
    const truth = sim.groundTruth(result.headers.get('x-teapot-response-id')!)!;
    expect(truth).toMatchObject({ complete: false, finishReason: null, fault: { mode: 'truncate' } });
    expect(truth.events).toHaveLength(5);
  });

  it('error-event: an `event: error` with a JSON error inside a 200 stream', async () => {
    const result = await readStream(await faulty('error-event', 2));
    expect(result.status).toBe(200);
    const last = result.events[result.events.length - 1];
    expect(last.event).toBe('error');
    expect((JSON.parse(last.data) as { error: { message: string } }).error.message).toMatch(/error/);
    expect(result.text).not.toContain('[DONE]');
    const truth = sim.groundTruth(result.headers.get('x-teapot-response-id')!)!;
    expect(truth.events.map((e) => e.kind)).toEqual(['role', 'content', 'content', 'error']);
  });

  it('reject-stream-options: 400 whenever the body has stream_options, a normal stream without', async () => {
    const rejected = await faulty('reject-stream-options');
    expect(rejected.status).toBe(400);
    expect(((await rejected.json()) as { error: { message: string } }).error.message).toMatch(
      /stream_options/,
    );
    const plain = await readStream(
      await faulty('reject-stream-options', undefined, { stream_options: undefined }),
    );
    expect(plain.status).toBe(200);
    expect(chunks(plain)).toHaveLength(1 + 8);
  });

  it('applies mid-stream faults to non-streamed responses too', async () => {
    const nonStream = (mode: string) => faulty(mode, 2, { stream: false, stream_options: undefined });
    const malformed = await nonStream('malformed');
    expect(malformed.status).toBe(200);
    await expect(malformed.json()).rejects.toThrow();
    const errored = await nonStream('error-event');
    expect(errored.status).toBe(500);
    expect(sim.groundTruth(errored.headers.get('x-teapot-response-id')!)).toMatchObject({ status: 500 });
    const truncated = await nonStream('truncate');
    await expect(truncated.text()).rejects.toThrow();
    const stalled = await Promise.race([
      nonStream('stall').then(
        () => 'answered',
        () => 'failed',
      ),
      new Promise((resolve) => setTimeout(() => resolve('quiet'), 300)),
    ]);
    expect(stalled).toBe('quiet');
  });

  it('fires a mid-stream fault before the end even when the response is shorter than x-teapot-fault-after', async () => {
    const result = await readStream(await faulty('truncate', 50));
    expect(chunks(result)).toHaveLength(1 + 7);
  });

  it('refuses an unknown x-teapot-fault with 400', async () => {
    const res = await faulty('explode');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('x-teapot-fault');
  });

  it('applies a simulator-wide fault at its rate, reproducibly from the seed', async () => {
    const statuses = async (seed: number) => {
      const flaky = await startSimulator({ quant: 'fp8', seed, fault: { mode: '500', rate: 0.5 } });
      try {
        const codes: number[] = [];
        for (let i = 0; i < 24; i++) {
          const res = await post(`${flaky.baseUrl}/completions`, { prompt: 'x', max_tokens: 1 });
          await res.arrayBuffer();
          codes.push(res.status);
        }
        return codes;
      } finally {
        await flaky.close();
      }
    };
    const first = await statuses(11);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(3);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(3);
    expect(await statuses(11)).toEqual(first);
  });

  it('lets a request opt out of the simulator-wide fault with x-teapot-fault: none', async () => {
    const always = await startSimulator({ quant: 'fp8', fault: { mode: '429', retryAfterS: 7 } });
    try {
      const limited = await post(`${always.baseUrl}/completions`, { prompt: 'x', max_tokens: 1 });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('7');
      const ok = await post(
        `${always.baseUrl}/completions`,
        { prompt: 'x', max_tokens: 1 },
        { 'x-teapot-fault': 'none' },
      );
      expect(ok.status).toBe(200);
    } finally {
      await always.close();
    }
  });
});
