import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_TOKENIZER } from '@teapot/testing';
import { created, endpointBody, profileBody, startApiForFile, uploadAsset } from './api';

const DATASET = readFileSync(
  join(__dirname, '..', '..', '..', 'packages', 'measure', 'datasets', 'teapot-chats.sharegpt.jsonl'),
);
const SHA = createHash('sha256').update(DATASET).digest('hex');
const TOKENIZER = readFileSync(TEST_TOKENIZER);
const TOKENIZER_SHA = createHash('sha256').update(TOKENIZER).digest('hex');
/** Loads as a tokenizer, but has one lower-case word of one token: no prompt can be built from it. */
const TINY =
  '{"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"ByteLevel",' +
  '"add_prefix_space":false,"trim_offsets":true,"use_regex":true},"post_processor":null,"decoder":{"type":"ByteLevel"},' +
  '"model":{"type":"BPE","vocab":{"t":0,"e":1,"a":2,"Ġ":3,"Ġt":4,"ea":5,"Ġtea":6},"merges":["Ġ t","e a","Ġt ea"]}}';

const TRACE = Buffer.from(
  [0, 1200, 1200, 3500]
    .map((ms, i) =>
      JSON.stringify({ timestamp: ms, input_length: 100 + i, output_length: 20, hash_ids: [i] }),
    )
    .join('\n') + '\n',
);
const TRACE_SHA = createHash('sha256').update(TRACE).digest('hex');
const OPEN = { kind: 'open', ratePerS: 1, arrival: 'poisson', maxConcurrency: 8 };

const api = startApiForFile();
let endpointId: string;

beforeAll(async () => {
  endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
});

function upload(
  body: Buffer | string,
  query = 'kind=dataset&format=sharegpt',
  type = 'application/x-ndjson',
) {
  return uploadAsset(api, body, query, type);
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
  ])('refuse %s with a 400 naming the line, storing nothing', async (_what, body, problem) => {
    const response = await upload(body).expect(400);
    expect(response.body.details).toEqual([{ field: 'body', problem: expect.stringContaining(problem) }]);
    const sha = createHash('sha256').update(body).digest('hex');
    await api.authed.get(`/assets/${sha}`).expect(404);
  });

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

/** A file sent as application/octet-stream, as a tokenizer.json must be (a JSON body would be parsed). */
function uploadBytes(body: Buffer | string, query = 'kind=tokenizer') {
  return uploadAsset(api, body, query, 'application/octet-stream');
}

describe('tokenizer assets', () => {
  it('are loaded, then stored once by SHA-256: 201, then 200; GET gives the metadata', async () => {
    const first = await uploadBytes(TOKENIZER).expect(201);
    expect(first.body).toMatchObject({ sha256: TOKENIZER_SHA, kind: 'tokenizer', vocabularySize: 1758 });
    expect(first.body.sizeBytes).toBe(TOKENIZER.length);
    expect((await uploadBytes(TOKENIZER).expect(200)).body).toEqual(first.body);
    const meta = await api.authed.get(`/assets/${TOKENIZER_SHA}`).expect(200);
    expect(meta.body).toMatchObject({
      sha256: TOKENIZER_SHA,
      kind: 'tokenizer',
      sizeBytes: TOKENIZER.length,
    });
  });

  it.each([
    ['JSON that is no tokenizer', '{"weights": [1, 2, 3]}', /is not a tokenizer\.json: it needs a "model"/],
    ['text that is not JSON', 'tokenizer.json', /is not a tokenizer\.json: not JSON/],
    ['a tokenizer with no words to build prompts from', TINY, /has 1 lower-case words of one token each/],
  ])('refuse %s with a 400 naming the body, storing nothing', async (_what, body, problem) => {
    const response = await uploadBytes(body).expect(400);
    expect(response.body.details).toEqual([{ field: 'body', problem: expect.stringMatching(problem) }]);
    await api.authed.get(`/assets/${createHash('sha256').update(body).digest('hex')}`).expect(404);
  });

  it('refuse a dataset format on a tokenizer, and a tokenizer as a dataset', async () => {
    const format = await uploadBytes(TOKENIZER, 'kind=tokenizer&format=sharegpt').expect(400);
    expect(format.body.details).toEqual([{ field: 'format', problem: expect.stringContaining('datasets') }]);
    const asDataset = await uploadBytes(TOKENIZER, 'kind=dataset&format=sharegpt').expect(400);
    expect(asDataset.body.details[0].field).toBe('body');
    const noFormat = await uploadBytes(DATASET, 'kind=dataset').expect(400);
    expect(noFormat.body.details).toEqual([{ field: 'format', problem: expect.any(String) }]);
  });

  it("hold each kind to its own limit: a tokenizer may be larger than a dataset, up to the tokenizer package's", async () => {
    // 33 MiB: over the dataset limit, within the tokenizer's; read, then refused as no tokenizer
    const big = Buffer.alloc(33 * 1024 * 1024, 0x20);
    expect((await uploadBytes(big, 'kind=dataset&format=sharegpt').expect(413)).body.message).toContain(
      'larger than 32 MB',
    );
    expect((await uploadBytes(big).expect(400)).body.details[0].field).toBe('body');
    const huge = Buffer.alloc(64 * 1024 * 1024 + 1, 0x20);
    expect((await uploadBytes(huge).expect(413)).body.message).toContain('larger than 64 MB');
  });
});

describe('profiles naming an uploaded tokenizer', () => {
  beforeAll(async () => {
    await uploadBytes(TOKENIZER);
    await uploadBytes(DATASET, 'kind=dataset&format=sharegpt');
  });

  it('take it by hash, return it as sent, and switch between forms or clear it on a patch', async () => {
    const profile = await created(
      api,
      '/profiles',
      profileBody(endpointId, { tokenizer: { sha256: TOKENIZER_SHA } }),
    );
    expect(profile.tokenizer).toEqual({ sha256: TOKENIZER_SHA });
    expect((await api.authed.get(`/profiles/${profile.id}`).expect(200)).body.tokenizer).toEqual({
      sha256: TOKENIZER_SHA,
    });
    const path = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ tokenizer: 'llama/tokenizer.json' });
    expect(path.body.tokenizer).toBe('llama/tokenizer.json');
    const cleared = await api.authed.patch(`/profiles/${profile.id}`).send({ tokenizer: null }).expect(200);
    expect(cleared.body.tokenizer).toBeNull();
    const row = await api.prisma.profile.findUniqueOrThrow({ where: { id: profile.id as string } });
    expect(row.tokenizer).toBeNull();
  });

  it.each([
    ['a dataset', { sha256: SHA }, 'tokenizer.sha256', /names an uploaded dataset, not a tokenizer/],
    ['a hash that is not one', { sha256: 'xyz' }, 'tokenizer.sha256', /lowercase hex SHA-256/],
    ['no hash', {}, 'tokenizer.sha256', /is required/],
    ['another key', { sha256: TOKENIZER_SHA, path: 'x' }, 'tokenizer.path', /is not an allowed field/],
    ['a number', 7, 'tokenizer', /must be a path under TEAPOT_TOKENIZER_DIR or \{"sha256"/],
    ['an escaping path', '../x.json', 'tokenizer', /no "\.\." segment/],
  ])('refuse %s with a 400 naming the field, storing nothing', async (_what, tokenizer, field, problem) => {
    const before = await api.prisma.profile.count();
    const response = await api.authed.post('/profiles').send(profileBody(endpointId, { tokenizer }));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ field, problem: expect.stringMatching(problem) }]);
    expect(await api.prisma.profile.count()).toBe(before);
  });

  it('answer a hash nothing is stored under with a 404 naming the field, as for any unknown reference', async () => {
    const tokenizer = { sha256: 'a'.repeat(64) };
    const response = await api.authed.post('/profiles').send(profileBody(endpointId, { tokenizer }));
    expect(response.status).toBe(404);
    expect(response.body.details).toEqual([
      { field: 'tokenizer.sha256', problem: expect.stringMatching(/names no uploaded tokenizer/) },
    ]);
  });

  it('document both forms in OpenAPI, with an example body', async () => {
    const doc = (await api.http.get('/openapi.json')).body;
    const field = doc.components.schemas.CreateProfileDto.properties.tokenizer;
    expect(field.oneOf.map((form: { type: string }) => form.type)).toEqual(['string', 'object']);
    expect(field.oneOf[1].properties.sha256.pattern).toBe('^[0-9a-f]{64}$');
    const examples = doc.paths['/profiles'].post.requestBody.content['application/json'].examples;
    expect(examples.uploadedTokenizer.value.tokenizer).toEqual({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(
      doc.paths['/assets'].post.parameters.find((p: { name: string }) => p.name === 'kind').schema.enum,
    ).toEqual(['dataset', 'tokenizer', 'trace']);
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

  it('answer 409 for bytes already stored as another kind, which stay as they were', async () => {
    const both = Buffer.from(
      '{"conversations":[{"from":"human","value":"hi"}],"timestamp_ms":0,"input_tokens":1,"output_tokens":1}\n',
    );
    await upload(both, 'kind=dataset&format=sharegpt').expect(201);
    const conflict = await upload(both, 'kind=trace').expect(409);
    expect(conflict.body.message).toContain('stored as a dataset');
    const sha256 = createHash('sha256').update(both).digest('hex');
    expect((await api.authed.get(`/assets/${sha256}`).expect(200)).body.kind).toBe('dataset');
  });

  it("take BurstGPT's CSV as published, sent as text/csv", async () => {
    const csv =
      'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\r\n5,ChatGPT,472,18,490,x\r\n9.5,GPT-4,1087,230,1317,y\r\n';
    const { body } = await upload(csv, 'kind=trace', 'text/csv').expect(201);
    expect(body).toMatchObject({
      kind: 'trace',
      mediaType: 'text/csv',
      traceFormat: 'burstgpt',
      lines: 2,
      spanS: 4.5,
    });
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
  ])('refuse %s with a 400 naming the line and field, storing nothing', async (_what, body, problem) => {
    const { details } = (await upload(body, 'kind=trace').expect(400)).body;
    expect(details).toEqual([{ field: 'body', problem: expect.stringContaining(problem) }]);
    const stored = await api.prisma.asset.findUnique({
      where: { sha256: createHash('sha256').update(body).digest('hex') },
    });
    expect(stored).toBeNull();
  });
});

describe('profiles replaying a trace', () => {
  const workload = { kind: 'trace-asset', sha256: TRACE_SHA, speed: 2 };

  it('take a stored trace by hash with an open load, kept as sent', async () => {
    await upload(TRACE, 'kind=trace');
    const profile = await created<{ id: string; workload: unknown }>(
      api,
      '/profiles',
      profileBody(endpointId, { workload, load: { ...OPEN, busyPoll: true } }),
    );
    expect(profile.workload).toEqual(workload);
    expect(profile).toMatchObject({ load: { busyPoll: true } });
    // a change of load must keep it open
    const closed = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ load: { kind: 'closed', concurrency: 2 } })
      .expect(400);
    expect(closed.body.details).toEqual([
      { field: 'load.kind', problem: expect.stringContaining('must be open') },
    ]);
  });

  it('end with the trace: no requestCount or durationS needed, unlike other workloads', async () => {
    await upload(TRACE, 'kind=trace');
    const unbounded = { requestCount: null, durationS: null };
    const profile = await created<{ id: string; requestCount: unknown }>(
      api,
      '/profiles',
      profileBody(endpointId, { workload, load: OPEN, ...unbounded }),
    );
    expect(profile.requestCount).toBeNull();
    // leaving the trace for a workload without an end of its own needs a bound again
    const synthetic = { kind: 'synthetic', inputTokens: 8, outputTokens: 8 };
    const response = await api.authed
      .patch(`/profiles/${profile.id}`)
      .send({ workload: synthetic })
      .expect(400);
    expect(response.body.details).toEqual([
      { field: 'requestCount', problem: expect.stringContaining('a run needs an end') },
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
    ['a busyPoll that is not a boolean', { load: { ...OPEN, busyPoll: 'yes' } }, 'load.busyPoll', 'boolean'],
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
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      {
        field: 'workload.sha256',
        problem: expect.stringContaining('names an uploaded dataset, not a trace'),
      },
    ]);
  });
});
