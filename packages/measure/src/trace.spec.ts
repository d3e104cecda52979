import { loadTrace, parseTrace, TRACE_LIMITS, TraceError } from './trace';
import { openSchedule } from './open-loop';
import type { RunOptions } from './types';

const lines = (...rows: unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

/** The error parseTrace throws for `text`, which must be a TraceError. */
function errorOf(text: string): TraceError {
  try {
    parseTrace(text);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    return error as TraceError;
  }
  throw new Error('the trace was read');
}

describe('parseTrace: accepted formats', () => {
  it("reads teapot's own format: milliseconds, relative to the first line", () => {
    const text = lines(
      { timestamp_ms: 500, input_tokens: 10, output_tokens: 5 },
      { timestamp_ms: 750.5, input_tokens: 20, output_tokens: 6 },
    );
    expect(parseTrace(text)).toEqual({
      format: 'teapot',
      requests: [
        { atMs: 0, inputTokens: 10, outputTokens: 5 },
        { atMs: 250.5, inputTokens: 20, outputTokens: 6 },
      ],
    });
  });

  it('reads Mooncake lines (timestamp in ms, hash_ids ignored)', () => {
    const text = lines(
      { timestamp: 0, input_length: 6955, output_length: 52, hash_ids: [46, 47] },
      { timestamp: 2000, input_length: 6472, output_length: 26, hash_ids: [46] },
    );
    const { format, requests } = parseTrace(text);
    expect(format).toBe('mooncake');
    expect(requests[1]).toEqual({ atMs: 2000, inputTokens: 6472, outputTokens: 26 });
  });

  it('reads BurstGPT lines (Timestamp in seconds)', () => {
    const text = lines(
      { Timestamp: 5, Model: 'ChatGPT', 'Request tokens': 472, 'Response tokens': 18, 'Total tokens': 490 },
      { Timestamp: 45.25, Model: 'GPT-4', 'Request tokens': 1087, 'Response tokens': 230 },
    );
    const { format, requests } = parseTrace(text);
    expect(format).toBe('burstgpt');
    expect(requests[1]).toEqual({ atMs: 40_250, inputTokens: 1087, outputTokens: 230 });
  });

  it('reads Azure lines: datetimes (UTC unless zoned), sub-millisecond digits kept', () => {
    const text = lines(
      { TIMESTAMP: '2023-11-16 18:15:46.6805900', ContextTokens: 374, GeneratedTokens: 44 },
      { TIMESTAMP: '2023-11-16 18:15:50.9951690', ContextTokens: 396, GeneratedTokens: 109 },
      { TIMESTAMP: '2023-11-16T19:15:51+01:00', ContextTokens: 1, GeneratedTokens: 1 },
    );
    const { format, requests } = parseTrace(text);
    expect(format).toBe('azure');
    expect(requests[1].atMs).toBeCloseTo(4314.579, 6);
    expect(requests[2].atMs).toBeCloseTo(4319.41, 6);
  });

  it("reads BurstGPT's CSV as published (a header row, then a request per row) as its JSON lines", () => {
    const csv =
      'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\r\n' +
      '5,ChatGPT,472,18,490,Conversation log\r\n' +
      '45.25,GPT-4,1087,230,1317,Conversation log\r\n';
    const json = lines(
      { Timestamp: 5, 'Request tokens': 472, 'Response tokens': 18 },
      { Timestamp: 45.25, 'Request tokens': 1087, 'Response tokens': 230 },
    );
    expect(parseTrace(csv)).toEqual(parseTrace(json));
    expect(parseTrace(csv).requests[1]).toEqual({ atMs: 40_250, inputTokens: 1087, outputTokens: 230 });
  });

  it("reads Azure's CSV with datetimes, and quoted fields", () => {
    const text =
      'TIMESTAMP,ContextTokens,GeneratedTokens,"Note, quoted"\n' +
      '2023-11-16 18:15:46.6805900,374,44,"a ""b"", c"\n' +
      '"2023-11-16 18:15:50.9951690",396,109,\n';
    const { format, requests } = parseTrace(text);
    expect(format).toBe('azure');
    expect(requests).toHaveLength(2);
    expect(requests[1].atMs).toBeCloseTo(4314.579, 6);
    expect(requests[1]).toMatchObject({ inputTokens: 396, outputTokens: 109 });
  });

  it('skips blank lines and a byte-order mark, counting lines as the file does', () => {
    const text = '\uFEFF' + lines({ timestamp_ms: 0, input_tokens: 1, output_tokens: 1 }) + '\n\n{"x":1}\n';
    expect(errorOf(text).where).toBe('line 4');
  });
});

describe('parseTrace: bad input names the line and field', () => {
  const good = { timestamp_ms: 0, input_tokens: 10, output_tokens: 5 };
  it.each([
    ['not JSON', lines(good) + '{"timestamp_ms": 1,\n', 'line 2', /not valid JSON/],
    ['not an object', lines(good, [1, 2]), 'line 2', /expected an object/],
    ['unknown fields', lines({ time: 0, prompt_len: 3 }), 'line 1', /not a known trace line.*Mooncake/],
    ['neither JSON nor a known CSV header', 'time,prompt_len\n0,3\n', 'line 1', /nor a CSV header.*Azure/],
    [
      'a CSV row of the wrong width',
      'timestamp_ms,input_tokens,output_tokens\n0,1,1\n5,1\n',
      'line 3',
      /2 fields, but the header names 3/,
    ],
    ['an unclosed CSV quote', 'timestamp_ms,input_tokens,output_tokens\n"0,1,1\n', 'line 2', /not closed/],
    [
      'a CSV length that is text',
      'timestamp_ms,input_tokens,output_tokens\n0,ten,1\n',
      'line 2',
      /"input_tokens" must be a positive integer, got "ten"/,
    ],
    [
      'a CSV timestamp out of order',
      'Timestamp,Request tokens,Response tokens\n5,1,1\n4.5,1,1\n',
      'line 3',
      /earlier than the line before it/,
    ],
    [
      'a missing length',
      lines(good, { timestamp_ms: 1, input_tokens: 3 }),
      'line 2',
      /"output_tokens" is missing/,
    ],
    [
      'a negative length',
      lines(good, { ...good, input_tokens: -3 }),
      'line 2',
      /"input_tokens" must be a positive integer, got -3/,
    ],
    [
      'a fractional length',
      lines({ ...good, output_tokens: 2.5 }),
      'line 1',
      /"output_tokens" must be a positive integer/,
    ],
    ['a zero length', lines({ ...good, output_tokens: 0 }), 'line 1', /positive integer, got 0/],
    ['a string length', lines({ ...good, input_tokens: '7' }), 'line 1', /positive integer, got "7"/],
    ['a huge length', lines({ ...good, input_tokens: TRACE_LIMITS.tokens + 1 }), 'line 1', /over the limit/],
    [
      'a missing timestamp',
      lines(good, { input_tokens: 1, output_tokens: 1 }),
      'line 2',
      /"timestamp_ms" is missing/,
    ],
    [
      'a negative timestamp',
      lines({ ...good, timestamp_ms: -1 }),
      'line 1',
      /"timestamp_ms" must be a number >= 0/,
    ],
    ['an unknown datetime', lines({ ...good, timestamp_ms: '16/11/2023 18:15' }), 'line 1', /datetime like/],
    [
      'an impossible date',
      lines({ ...good, timestamp_ms: '2023-02-30 00:00:00' }),
      'line 1',
      /datetime like/,
    ],
    [
      'out of order',
      lines(good, { ...good, timestamp_ms: 10 }, { ...good, timestamp_ms: 9 }),
      'line 3',
      /earlier than the line before/,
    ],
    [
      'mixed kinds of time',
      lines(good, { ...good, timestamp_ms: '2024-01-01 00:00:00' }),
      'line 2',
      /first line's is a number/,
    ],
    [
      'another format later',
      lines(good, { timestamp: 1, input_length: 1, output_length: 1 }),
      'line 2',
      /"timestamp_ms" is missing/,
    ],
    ['an empty trace', '\n  \n', 'file', /the trace is empty/],
  ])('%s', (_name, text, where, message) => {
    const error = errorOf(text);
    expect(error.where).toBe(where);
    expect(error.message).toMatch(message);
  });

  it('a trace with more lines than the limit', () => {
    const row = JSON.stringify(good) + '\n';
    const error = errorOf(row.repeat(TRACE_LIMITS.lines + 1));
    expect(error.where).toBe(`line ${TRACE_LIMITS.lines + 1}`);
    expect(error.message).toMatch(/more than 200000 requests/);
  });

  it('a file over the size limit', () => {
    expect(errorOf(' '.repeat(TRACE_LIMITS.bytes + 1)).message).toMatch(/over the limit of 33554432 bytes/);
  });

  it('a speed out of bounds', () => {
    expect(() => loadTrace(lines(good), { sha256: '0', speed: 0 })).toThrow(/speed: must be a number from/);
  });
});

describe('openSchedule of a trace', () => {
  const text = lines(
    { timestamp_ms: 100, input_tokens: 3, output_tokens: 2 },
    { timestamp_ms: 1100, input_tokens: 4, output_tokens: 3 },
    { timestamp_ms: 3100, input_tokens: 5, output_tokens: 4 },
  );
  function schedule(overrides: Partial<RunOptions>, speed = 1) {
    const options: RunOptions = {
      target: { baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'completions', model: 'm' },
      workload: loadTrace(text, { sha256: 'a'.repeat(64), speed }),
      load: { kind: 'open', ratePerS: 1, arrival: 'poisson' },
      ...overrides,
    };
    return openSchedule(options, null);
  }

  it('divides the gaps by the speed and gives each arrival its own lengths', () => {
    const { timesUs, promptAt } = schedule({ requests: 10 }, 2);
    expect([...timesUs]).toEqual([0, 500_000, 1_500_000]);
    const third = promptAt!(2);
    expect(third.outputTokens).toBe(4);
    expect(third.targetPromptTokens).toBe(5);
    expect(third.promptWords).toBe(5);
  });

  it('stops at the request count or the duration window, whichever comes first', () => {
    expect([...schedule({ requests: 2 }).timesUs]).toEqual([0, 1_000_000]);
    expect([...schedule({ durationS: 2.5 }).timesUs]).toEqual([0, 1_000_000]);
    expect([...schedule({ durationS: 2.5 }, 2).timesUs]).toEqual([0, 500_000, 1_500_000]);
  });
});
