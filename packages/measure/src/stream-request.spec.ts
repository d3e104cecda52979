import { errors } from 'undici';
import { ClientConfigError } from './client-config-error';
import { runBenchmark } from './run';
import { classifyTransportError, parseRetryAfter } from './request-errors';
import { byteServer, chunk, runAgainst, usage, type Step } from './test-support/byte-server';
import { CHUNK_KIND, type RunOptions } from './types';

describe('streaming client on exact byte sequences', () => {
  it('sends stream, stream_options, forced output length and custom headers', async () => {
    const { server } = await runAgainst(
      () => ({ steps: [chunk({ content: 'a' }, { finish_reason: 'stop' }), 'data: [DONE]\n\n'] }),
      {
        forceOutputLength: true,
      },
    );
    expect(server.bodies[0]).toMatchObject({
      model: 'm',
      messages: [{ role: 'user', content: expect.any(String) }],
      max_tokens: 3,
      min_tokens: 3,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
    expect(server.headers[0].authorization).toBe('Bearer secret');
    expect(server.headers[0].accept).toBe('text/event-stream');
  });

  it('stamps an event with the arrival of the read that completed it, even split mid-character', async () => {
    const event = Buffer.from(chunk({ content: 'thé 🫖' }), 'utf8');
    const cut = event.indexOf(0xf0) + 2; // inside the 4-byte teapot
    const { result } = await runAgainst(() => ({
      steps: [
        ': keep-alive\r\n\r\n',
        chunk({ role: 'assistant', content: '' }).replace(/\n/g, '\r\n'),
        event.subarray(0, cut),
        150,
        event.subarray(cut),
        'data: {"id":"r1","choices":[{"index":0,\ndata: "delta":{"content":"x"},"finish_reason":"stop"}]}\n\n',
        'data: [DONE]\n\n',
      ],
    }));
    const [record] = result.requests;
    expect(record.outcome).toBe('ok');
    expect(Array.from(record.chunkKinds)).toEqual([CHUNK_KIND.empty, CHUNK_KIND.content, CHUNK_KIND.content]);
    const [role, split, joined] = record.chunkOffsetsUs;
    expect(split - role).toBeGreaterThanOrEqual(140_000);
    // the multi-line data event arrived with (or right after) the second half, not 150 ms later
    expect(joined - split).toBeLessThan(100_000);
    expect(record.tokenSource).toBe('chunk');
    expect(record.outputTokens).toBe(2);
    expect(record.finishReason).toBe('stop');
    expect(record.responseId).toBe('r1');
  });

  it('reads unusual chunks through JSON.parse the same way, and a null choice as carrying nothing', async () => {
    const { result } = await runAgainst(() => ({
      steps: [
        'data: {"id":"r\\u0031","choices":[null]}\n\n',
        'data: {"choices":[{"delta":{"con\\u0074ent":"a"}}],"usage":{"completion_tokens":1.0}}\n\n',
        'data: {"choices":[{"delta":{"content":"b"},"finish_reason":"st\\u006fp"}],"usage":{"completion_tokens":2,"prompt_tokens":5}}\n\n',
        'data: [DONE]\n\n',
      ],
    }));
    const [record] = result.requests;
    expect(record.outcome).toBe('ok');
    expect(record.responseId).toBe('r1');
    expect(Array.from(record.chunkKinds)).toEqual([CHUNK_KIND.empty, CHUNK_KIND.content, CHUNK_KIND.content]);
    expect(Array.from(record.chunkTokens)).toEqual([0, 1, 1]);
    expect(record.tokenSource).toBe('usage_delta');
    expect(record.finishReason).toBe('stop');
    expect(record.promptTokens).toBe(5);
  });

  it('accepts a stream without [DONE] that sent a finish_reason, and spreads a final usage', async () => {
    const { result } = await runAgainst(() => ({
      steps: [
        chunk({ role: 'assistant' }),
        chunk({ content: 'a' }),
        chunk({ content: 'b' }),
        chunk({ content: 'c' }, { finish_reason: 'length' }),
        usage(7),
      ],
    }));
    const [record] = result.requests;
    expect(record.outcome).toBe('ok');
    expect(record.tokenSource).toBe('usage_final');
    expect(Array.from(record.chunkTokens)).toEqual([0, 3, 2, 2, 0]);
    expect(record.outputTokens).toBe(7);
    expect(record.promptTokens).toBe(4);
  });

  it("parses each request afresh with the working state of the one before, and keeps every record's arrays", async () => {
    // one stream, three requests in a row on one parser and one set of arrays (ScratchShelf): a long
    // response that grows the arrays, one cut off mid-line by a stall, then a short one
    let served = 0;
    const long = Array.from({ length: 100 }, (_, k) => chunk({ content: `t${k}` }));
    const { result } = await runAgainst(
      () => {
        const nth = served++;
        if (nth === 0) return { steps: [...long, chunk({}, { finish_reason: 'stop' }), 'data: [DONE]\n\n'] };
        if (nth === 1) return { steps: ['data: {"id":"r1","choices":[{"delta":{"con', 2000] };
        return {
          steps: [
            chunk({ content: 'x' }),
            chunk({ content: 'y' }, { finish_reason: 'stop' }),
            'data: [DONE]\n\n',
          ],
        };
      },
      { requests: 3, stallTimeoutMs: 300, warmUp: false },
    );
    const [first, cut, last] = result.requests;
    expect(first.outcome).toBe('ok');
    expect(first.chunkKinds).toHaveLength(101);
    expect(Array.from(first.chunkTokens.subarray(0, 100))).toEqual(new Array(100).fill(1));
    expect(first.chunkKinds[100]).toBe(CHUNK_KIND.empty);
    expect(first.outputTokens).toBe(100);
    expect(cut.error?.kind).toBe('stream_stalled');
    // the cut request's half line is not read as the start of the next response
    expect(last.outcome).toBe('ok');
    expect(Array.from(last.chunkKinds)).toEqual([CHUNK_KIND.content, CHUNK_KIND.content]);
    expect(Array.from(last.chunkTokens)).toEqual([1, 1]);
    expect(last.finishReason).toBe('stop');
  });

  it('counts reasoning and tool-call chunks from continuous usage', async () => {
    const u = (n: number) => ({ usage: { prompt_tokens: 4, completion_tokens: n } });
    const line = (delta: Record<string, unknown>, n: number, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ delta, finish_reason: finish }], ...u(n) })}\n\n`;
    const { result } = await runAgainst(() => ({
      steps: [
        line({ role: 'assistant', content: '' }, 0),
        line({ reasoning_content: 'think' }, 2),
        line({ reasoning: 'more' }, 3),
        line({ content: 'ok' }, 4),
        line({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }, 6, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    }));
    const [record] = result.requests;
    const { content, reasoning, toolCall, empty } = CHUNK_KIND;
    expect(Array.from(record.chunkKinds)).toEqual([empty, reasoning, reasoning, content, toolCall]);
    expect(Array.from(record.chunkTokens)).toEqual([0, 2, 1, 1, 2]);
    expect(record.tokenSource).toBe('usage_delta');
  });

  interface BrokenStream {
    name: string;
    steps: Step[];
    kind: string;
    contentType?: string;
    earlyHints?: boolean;
  }
  it.each<BrokenStream>([
    { name: 'no [DONE] and no finish_reason', steps: [chunk({ content: 'a' })], kind: 'truncated_stream' },
    {
      name: 'a partial last line',
      steps: [chunk({ content: 'a' }, { finish_reason: 'stop' }), 'data: {"id":"r1","cho'],
      kind: 'truncated_stream',
    },
    {
      name: 'a connection reset mid-stream',
      steps: [chunk({ content: 'a' }), 50, 'destroy'],
      kind: 'truncated_stream',
    },
    {
      name: 'an error object in a 200 stream',
      steps: [chunk({ content: 'a' }), 'data: {"error":{"message":"overloaded"}}\n\n'],
      kind: 'stream_error_event',
    },
    {
      name: 'event: error without data',
      steps: [chunk({ content: 'a' }), 'event: error\n\n', 'data: [DONE]\n\n'],
      kind: 'stream_error_event',
    },
    {
      name: 'data that is not JSON',
      steps: [chunk({ content: 'a' }), 'data: nope\n\n', 'data: [DONE]\n\n'],
      kind: 'malformed_stream',
    },
    { name: 'data that is JSON but not an object', steps: ['data: 42\n\n'], kind: 'malformed_stream' },
    {
      name: 'a chunk object cut short inside one line',
      steps: [chunk({ content: 'a' }), 'data: {"id":"r1","choices":[{"delta":{"content":"b"}}]\n\n'],
      kind: 'malformed_stream',
    },
    {
      name: 'a JSON body instead of a stream',
      steps: ['{"id":"r1","choices":[{"message":{"content":"hi"}}]}'],
      kind: 'malformed_stream',
      contentType: 'application/json',
    },
    {
      name: 'a cut stream after an interim 103',
      steps: [chunk({ content: 'a' })],
      kind: 'truncated_stream',
      earlyHints: true,
    },
  ])('classifies $name', async ({ steps, kind, contentType, earlyHints }) => {
    const { result } = await runAgainst(() => ({
      steps,
      headers: contentType ? { 'content-type': contentType } : undefined,
      earlyHints,
    }));
    expect(result.requests[0].outcome).toBe('error');
    expect(result.requests[0].error!.kind).toBe(kind);
    expect(result.summary.errorsByClass).toEqual({ [kind]: 1 });
    if (earlyHints) expect(result.requests[0].ttfbUs).not.toBeNull();
  });

  it('retries a 422 without stream_options and remembers the rejection', async () => {
    const { result, server } = await runAgainst(
      (body) =>
        'stream_options' in body
          ? {
              status: 422,
              headers: { 'content-type': 'application/json' },
              steps: ['{"detail":"unprocessable"}'],
            }
          : { steps: [chunk({ content: 'a' }, { finish_reason: 'stop' }), 'data: [DONE]\n\n'] },
      { requests: 3 },
    );
    expect(result.summary.requests.succeeded).toBe(3);
    expect(result.streamOptions).toEqual({ requested: true, rejectedByServer: true, retriedRequests: 1 });
    expect(server.bodies.map((b) => 'stream_options' in b)).toEqual([true, false, false, false]);
  });

  it('does not blame stream_options for a 400 that a retry without them gets too', async () => {
    const { result, server } = await runAgainst(
      () => ({
        status: 400,
        headers: { 'content-type': 'application/json' },
        steps: ['{"error":"bad model"}'],
      }),
      { requests: 3 },
    );
    expect(result.summary.errorsByClass).toEqual({ http_status: 3 });
    expect(result.requests[0].error).toMatchObject({ kind: 'http_status', status: 400 });
    expect(result.requests[0].error!.message).toContain('bad model');
    expect(result.streamOptions).toEqual({ requested: true, rejectedByServer: false, retriedRequests: 1 });
    expect(server.bodies.map((b) => 'stream_options' in b)).toEqual([true, false, true, true]);
  });
});

describe('classifyTransportError', () => {
  const failure = (code: string) => Object.assign(new Error('x'), { code });

  it('classifies both transports alike', () => {
    // undici's codes beside the http1 transport's own: a connect timeout is a connect error in both
    expect(classifyTransportError(failure('UND_ERR_CONNECT_TIMEOUT'), false)).toBe('connect_error');
    expect(classifyTransportError(failure('TEAPOT_CONNECT_TIMEOUT'), false)).toBe('connect_error');
    expect(classifyTransportError(failure('ECONNREFUSED'), false)).toBe('connect_refused');
    expect(classifyTransportError(failure('UND_ERR_SOCKET'), true)).toBe('truncated_stream');
    expect(classifyTransportError(failure('TEAPOT_SOCKET_CLOSED'), true)).toBe('truncated_stream');
    expect(classifyTransportError(failure('TEAPOT_SOCKET_CLOSED'), false)).toBe('connect_error');
    expect(classifyTransportError(failure('UND_ERR_BODY_TIMEOUT'), true)).toBe('timeout');
  });

  it('blames the client, not the endpoint, for what the client refused to send or connect to', () => {
    expect(classifyTransportError(new errors.InvalidArgumentError('invalid foo header'), false)).toBe(
      'client_config',
    );
    expect(classifyTransportError(new ClientConfigError('address refused by policy'), false)).toBe(
      'client_config',
    );
    expect(classifyTransportError(failure('ERR_INVALID_IP_ADDRESS'), false)).toBe('client_config');
    expect(classifyTransportError(failure('ENOTFOUND'), false)).toBe('connect_error');
  });
});

describe('the request URL', () => {
  it("keeps the base URL's query string on every request", async () => {
    const { server } = await runAgainst(() => ({ status: 500, steps: ['no'] }), { requests: 2 });
    expect(server.urls).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    const gateway = await byteServer(() => ({ status: 500, steps: ['no'] }));
    try {
      await runBenchmark({
        target: { baseUrl: `${gateway.baseUrl}/?api-version=2024-10-21`, apiKind: 'completions', model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 3 },
        load: { kind: 'closed', concurrency: 1 },
        requests: 1,
      });
      expect(gateway.urls).toEqual(['/v1/completions?api-version=2024-10-21']);
    } finally {
      await gateway.close();
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter('0.5')).toBe(0.5);
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('options that cannot describe a run', () => {
  const base: RunOptions = {
    target: { baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 3 },
    load: { kind: 'closed', concurrency: 1 },
    requests: 1,
  };
  it.each([
    ['no end', { requests: undefined }],
    ['a bad URL', { target: { ...base.target, baseUrl: 'not a url' } }],
    ['a non-http URL', { target: { ...base.target, baseUrl: 'ftp://x/v1' } }],
    ['zero concurrency', { load: { kind: 'closed', concurrency: 0 } }],
    ['a negative rate', { load: { kind: 'open', ratePerS: -1, arrival: 'poisson' } }],
    ['an empty dataset', { workload: { kind: 'dataset', prompts: [] } }],
  ] as const)('throw for %s', async (_name, overrides) => {
    await expect(runBenchmark({ ...base, ...(overrides as Partial<RunOptions>) })).rejects.toThrow();
  });
});
