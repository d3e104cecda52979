import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { created, endpointBody, profileBody, type RunningApi, startApi, uploadAsset } from './api';

const DATASET = readFileSync(
  join(__dirname, '..', '..', '..', 'packages', 'measure', 'datasets', 'teapot-chats.sharegpt.jsonl'),
);
const SHA = createHash('sha256').update(DATASET).digest('hex');

const TRACE = Buffer.from(
  [0, 1200, 1200, 3500]
    .map((ms, i) =>
      JSON.stringify({ timestamp: ms, input_length: 100 + i, output_length: 20, hash_ids: [i] }),
    )
    .join('\n') + '\n',
);
const TRACE_SHA = createHash('sha256').update(TRACE).digest('hex');
const OPEN = { kind: 'open', ratePerS: 1, arrival: 'poisson', maxConcurrency: 8 };

let api: RunningApi;
let endpointId: string;

beforeAll(async () => {
  api = await startApi();
  endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
});
afterAll(() => api?.close());

function upload(
  body: Buffer | string,
  query = 'kind=dataset&format=sharegpt',
  type = 'application/x-ndjson',
) {
  return uploadAsset(api, body, query, type);
}

/** An upload that must be a 400 naming the body with `problem`, and store nothing. */
async function refused(body: string, query: string, problem: string): Promise<void> {
  const response = await upload(body, query).expect(400);
  expect(response.body.details).toEqual([{ field: 'body', problem: expect.stringContaining(problem) }]);
  const sha = createHash('sha256').update(body).digest('hex');
  await api.authed.get(`/assets/${sha}`).expect(404);
}

describe('dataset assets', () => {
  it('are stored once by SHA-256: 201, then 200 with the same row; GET gives the metadata', async () => {
    const first = await upload(DATASET).expect(201);
    expect(first.body).toEqual({
      sha256: SHA,
      kind: 'dataset',
      mediaType: 'application/x-ndjson',
      sizeBytes: DATASET.length,
      createdAt: expect.any(String),
      conversations: 32,
      turns: 80,
    });
    const again = await upload(DATASET, 'kind=dataset&format=sharegpt', 'application/octet-stream').expect(
      200,
    );
    expect(again.body).toEqual(first.body);
    expect(await api.prisma.asset.count()).toBe(1);
    const meta = await api.authed.get(`/assets/${SHA}`).expect(200);
    expect(meta.body).toEqual({
      sha256: SHA,
      kind: 'dataset',
      mediaType: 'application/x-ndjson',
      sizeBytes: DATASET.length,
      createdAt: first.body.createdAt,
    });
    await api.authed.get(`/assets/${'0'.repeat(64)}`).expect(404);
  });

  it.each([
    [
      'a line that is not JSON',
      '{"conversations":[{"from":"human","value":"hi"}]}\n{oops',
      'line 2: not valid JSON',
    ],
    [
      'a conversation without a user turn',
      '{"conversations":[{"from":"system","value":"x"}]}',
      'line 1: no user turn',
    ],
    [
      'an empty message',
      '{"conversations":[{"from":"human","value":""}]}',
      'line 1: conversations[0].value is empty',
    ],
    [
      'an unknown role',
      '{"conversations":[{"from":"robot","value":"x"}]}',
      'line 1: conversations[0].from: unknown role',
    ],
  ])('refuse %s with a 400 naming the line, storing nothing', (_what, body, problem) =>
    refused(body, 'kind=dataset&format=sharegpt', problem),
  );

  it('refuse an unknown format or kind (400), a JSON body (415) and a body over 32 MiB (413)', async () => {
    const format = await upload(DATASET, 'kind=dataset&format=csv').expect(400);
    expect(format.body.details).toEqual([
      { field: 'format', problem: expect.stringContaining('sharegpt, openai') },
    ]);
    await upload(DATASET, 'kind=trace&format=sharegpt').expect(400);
    await upload(DATASET, 'kind=dataset&format=sharegpt', 'application/json').expect(415);
    const huge = Buffer.alloc(32 * 1024 * 1024 + 1, 0x20);
    const tooLarge = await upload(huge).expect(413);
    expect(tooLarge.body.message).toContain('larger than 32 MB');
    const blank = await upload(Buffer.alloc(0)).expect(400);
    expect(blank.body.details[0].field).toBe('body');
  });
});

describe('profiles naming a dataset', () => {
  it('take a stored dataset by hash, kept as sent in the profile', async () => {
    await upload(DATASET);
    const workload = {
      kind: 'dataset-asset',
      sha256: SHA,
      format: 'sharegpt',
      maxTurns: 2,
      sample: 5,
      actualAnswers: true,
    };
    const profile = await created<{ workload: unknown }>(
      api,
      '/profiles',
      profileBody(endpointId, { workload }),
    );
    expect(profile.workload).toEqual(workload);
  });

  it.each([
    ['an unknown hash', { sha256: 'a'.repeat(64) }, 'workload.sha256', 'names no uploaded dataset'],
    ['a hash that is not one', { sha256: 'xyz' }, 'workload.sha256', 'SHA-256'],
    [
      'filters no conversation passes',
      { maxInputTokens: 1 },
      'workload',
      'none of the 32 conversations passes',
    ],
    [
      'the wrong format',
      { format: 'openai' },
      'workload.format',
      'line 1: expected an object with a "messages" array',
    ],
    ['an unknown format', { format: 'csv' }, 'workload.format', 'must be one of'],
  ])('refuse %s, naming the field', async (_what, change, field, problem) => {
    await upload(DATASET);
    const workload = { kind: 'dataset-asset', sha256: SHA, format: 'sharegpt', ...change };
    const response = await api.authed.post('/profiles').send(profileBody(endpointId, { workload }));
    expect([400, 404, 422]).toContain(response.status);
    expect(response.body.details).toEqual([{ field, problem: expect.stringContaining(problem) }]);
  });

  it('take multi-turn and shared-prefix workloads, and refuse their bad fields', async () => {
    const multiTurn = {
      kind: 'multi-turn',
      turns: 3,
      inputTokens: 16,
      outputTokens: 8,
      thinkTime: { distribution: 'constant', meanMs: 500 },
    };
    expect(
      (
        await created<{ workload: unknown }>(
          api,
          '/profiles',
          profileBody(endpointId, { workload: multiTurn }),
        )
      ).workload,
    ).toEqual(multiTurn);
    const bad = await api.authed
      .post('/profiles')
      .send(
        profileBody(endpointId, {
          workload: { ...multiTurn, thinkTime: { distribution: 'gamma', meanMs: 1 } },
        }),
      )
      .expect(400);
    expect(bad.body.details).toEqual([
      { field: 'workload.thinkTime.distribution', problem: expect.any(String) },
    ]);
    const prefix = {
      kind: 'shared-prefix',
      prefixes: 4,
      prefixTokens: 256,
      requestsPerPrefix: 8,
      suffixTokens: 32,
      outputTokens: 16,
    };
    await created(api, '/profiles', profileBody(endpointId, { workload: prefix }));
    const zero = await api.authed
      .post('/profiles')
      .send(profileBody(endpointId, { workload: { ...prefix, prefixes: 0 } }))
      .expect(400);
    expect(zero.body.details).toEqual([{ field: 'workload.prefixes', problem: expect.any(String) }]);
  });
});

describe('trace assets', () => {
  it('are read, then stored once by TRACE_SHA-256, saying what was read', async () => {
    const first = await upload(TRACE, 'kind=trace').expect(201);
    expect(first.body).toEqual({
      sha256: TRACE_SHA,
      kind: 'trace',
      mediaType: 'application/x-ndjson',
      sizeBytes: TRACE.length,
      createdAt: expect.any(String),
      traceFormat: 'mooncake',
      lines: 4,
      spanS: 3.5,
    });
    expect((await upload(TRACE, 'kind=trace').expect(200)).body).toEqual(first.body);
  });

  it.each([
    [
      'a line that is not JSON',
      '{"timestamp_ms":0,"input_tokens":1,"output_tokens":1}\n{oops',
      'line 2: not valid JSON',
    ],
    [
      'a negative length',
      '{"timestamp_ms":0,"input_tokens":-4,"output_tokens":1}',
      'line 1: "input_tokens" must be a positive integer',
    ],
    ['a missing length', '{"Timestamp":0,"Request tokens":4}', 'line 1: "Response tokens" is missing'],
    [
      'timestamps out of order',
      '{"timestamp":5,"input_length":1,"output_length":1}\n{"timestamp":4,"input_length":1,"output_length":1}',
      'line 2: "timestamp" is earlier than the line before it',
    ],
    [
      'an unknown timestamp',
      '{"TIMESTAMP":"yesterday","ContextTokens":1,"GeneratedTokens":1}',
      'line 1: "TIMESTAMP" must be',
    ],
    ['an empty trace', '\n\n', 'the trace is empty'],
  ])('refuse %s with a 400 naming the line and field, storing nothing', (_what, body, problem) =>
    refused(body, 'kind=trace', problem),
  );
});

describe('profiles replaying a trace', () => {
  const workload = { kind: 'trace-asset', sha256: TRACE_SHA, speed: 2 };

  it('take a stored trace by hash with an open load, kept as sent', async () => {
    await upload(TRACE, 'kind=trace');
    const profile = await created<{ id: string; workload: unknown }>(
      api,
      '/profiles',
      profileBody(endpointId, { workload, load: OPEN }),
    );
    expect(profile.workload).toEqual(workload);
    // a change of load must keep it open
    const closed = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ load: { kind: 'closed', concurrency: 2 } })
      .expect(400);
    expect(closed.body.details).toEqual([
      { field: 'load.kind', problem: expect.stringContaining('must be open') },
    ]);
  });

  it.each([
    ['a closed load', { load: { kind: 'closed', concurrency: 2 } }, 'load.kind', 'must be open'],
    [
      'an unknown hash',
      { workload: { ...workload, sha256: 'b'.repeat(64) } },
      'workload.sha256',
      'names no uploaded trace',
    ],
    [
      'a speed of 0',
      { workload: { ...workload, speed: 0 } },
      'workload.speed',
      'must not be less than 0.001',
    ],
    [
      'a sweep',
      { sweep: { kind: 'points', dimension: 'rate', points: [1, 2] } },
      'sweep',
      'cannot vary the load of a trace-asset workload',
    ],
  ])('refuse %s, naming the field', async (_what, change, field, problem) => {
    await upload(TRACE, 'kind=trace');
    const response = await api.authed
      .post('/profiles')
      .send(profileBody(endpointId, { workload, load: OPEN, ...change }));
    expect([400, 404, 422]).toContain(response.status);
    expect(response.body.details).toEqual([{ field, problem: expect.stringContaining(problem) }]);
  });

  it('refuse a dataset named as a trace', async () => {
    const dataset = Buffer.from('{"conversations":[{"from":"human","value":"hi"}]}\n');
    const sha256 = (await upload(dataset, 'kind=dataset&format=sharegpt').expect(201)).body.sha256 as string;
    const response = await api.authed
      .post('/profiles')
      .send(profileBody(endpointId, { workload: { kind: 'trace-asset', sha256 }, load: OPEN }));
    expect(response.body.details).toEqual([
      { field: 'workload.sha256', problem: expect.stringContaining('names no uploaded trace') },
    ]);
  });
});
