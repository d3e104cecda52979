import { tokenizerDirectory } from '@teapot/testing';
import { created, endpointBody, profileBody, type RunningApi, startApi } from './api';

describe('a profile naming the model tokenizer under TEAPOT_TOKENIZER_DIR', () => {
  const tokenizers = tokenizerDirectory();
  let api: RunningApi;
  let endpointId: string;
  beforeAll(async () => {
    api = await startApi({ TEAPOT_TOKENIZER_DIR: tokenizers.dir });
    endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
  });
  afterAll(async () => {
    await api?.close();
    tokenizers.remove();
  });

  it('stores a tokenizer found there, returns it, and clears it with null', async () => {
    const profile = await created(
      api,
      '/profiles',
      profileBody(endpointId, { tokenizer: 'llama/tokenizer.json' }),
    );
    expect(profile.tokenizer).toBe('llama/tokenizer.json');
    const cleared = await api.authed.patch(`/profiles/${profile.id}`).send({ tokenizer: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.tokenizer).toBeNull();
    const plain = await created(api, '/profiles', profileBody(endpointId));
    expect(plain.tokenizer).toBeNull();
  });

  it.each([
    ['../etc/passwd', /no "\.\." segment/],
    ['/etc/passwd', /relative/],
    ['llama/missing.json', /cannot read tokenizer "llama\/missing\.json" .*ENOENT/],
    ['weights.json', /weights\.json is not a tokenizer\.json/],
    ['llama', /not a file/],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (tokenizer, problem) => {
    const before = await api.prisma.profile.count();
    const response = await api.authed.post('/profiles').send(profileBody(endpointId, { tokenizer }));
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([{ field: 'tokenizer', problem: expect.stringMatching(problem) }]);
    expect(await api.prisma.profile.count()).toBe(before);
  });

  it('checks a patch the same way', async () => {
    const profile = await created(api, '/profiles', profileBody(endpointId));
    const response = await api.authed.patch(`/profiles/${profile.id}`).send({ tokenizer: 'weights.json' });
    expect(response.status).toBe(400);
    expect(response.body.details[0].field).toBe('tokenizer');
  });
});
