import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const DATASET = readFileSync(
  join(__dirname, '..', '..', '..', 'packages', 'measure', 'datasets', 'teapot-chats.sharegpt.jsonl'),
);
const SHA = createHash('sha256').update(DATASET).digest('hex');

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
  return api.http
    .post(`/assets?${query}`)
    .set('authorization', api.auth)
    .set('content-type', type)
    .send(body);
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
