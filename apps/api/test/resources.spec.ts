import { RunQueueProducer } from '@teapot/jobs';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();

const get = (path: string) => api.authed.get(path);
const patch = (path: string, body: object) => api.authed.patch(path).send(body);
const del = (path: string) => api.authed.delete(path);

describe('endpoints', () => {
  it('creates, reads, updates and deletes an endpoint', async () => {
    const body = endpointBody({ tags: ['h100', 'fp8', 'h100'] });
    const endpoint = await created(api, '/endpoints', body);
    expect(endpoint).toMatchObject({
      name: body.name,
      baseUrl: body.baseUrl,
      apiKind: 'chat',
      model: 'llama-8b',
    });
    expect(endpoint.tags).toEqual(['h100', 'fp8']);
    expect(endpoint.authHeaders).toEqual({});
    expect((await get(`/endpoints/${endpoint.id}`)).body).toEqual(endpoint);

    const updated = await patch(`/endpoints/${endpoint.id}`, { model: 'llama-70b', tags: ['a100'] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: endpoint.id,
      model: 'llama-70b',
      tags: ['a100'],
      name: body.name,
    });

    expect((await del(`/endpoints/${endpoint.id}`)).status).toBe(204);
    expect((await get(`/endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await del(`/endpoints/${endpoint.id}`)).status).toBe(404);
  });

  it('refuses a duplicate name with 409 and a null for a required field with 400', async () => {
    const body = endpointBody();
    const first = await created(api, '/endpoints', body);
    const again = await api.authed.post('/endpoints').send(body);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('name');
    const nulled = await patch(`/endpoints/${first.id}`, { name: null });
    expect(nulled.status).toBe(400);
    expect(nulled.body.details).toContainEqual({ field: 'name', problem: 'must be a string' });
    expect(nulled.body.details.every((detail: { field: string }) => detail.field === 'name')).toBe(true);
  });

  it('lists by tag and name, newest first, with a cursor through every page', async () => {
    const tag = `t${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await created(api, '/endpoints', endpointBody({ name: `Paged-${tag}-${i}`, tags: [tag] })))
          .id as string,
      );
    }
    await created(api, '/endpoints', endpointBody({ name: `other-${tag}`, tags: ['unrelated'] }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/endpoints?tag=${tag}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await get(query);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((item: { id: string }) => item.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const byName = await get(`/endpoints?name=paged-${tag}-3`);
    expect(byName.body.items.map((item: { id: string }) => item.id)).toEqual([ids[3]]);
    const byTwoTags = await get(`/endpoints?tag=${tag}&tag=unrelated`);
    expect(byTwoTags.body.items).toEqual([]);
    expect((await get('/endpoints?cursor=bm90LWEtY3Vyc29y')).body.details).toEqual([
      { field: 'cursor', problem: 'is not a cursor this API returned' },
    ]);
  });

  it('refuses to delete an endpoint with runs (409) but archives it, hidden from lists by default', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody({ tags: ['archive-test'] }));
    const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
    await created(api, '/runs', { profileId: profile.id });

    const refused = await del(`/endpoints/${endpoint.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('archive=true');

    const archived = await del(`/endpoints/${endpoint.id}?archive=true`);
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    expect((await get('/endpoints?tag=archive-test')).body.items).toEqual([]);
    const all = await get('/endpoints?tag=archive-test&includeArchived=true');
    expect(all.body.items.map((item: { id: string }) => item.id)).toEqual([endpoint.id]);

    const runOfArchived = await api.authed.post('/runs').send({ profileId: profile.id });
    expect(runOfArchived.status).toBe(409);
    const restored = await patch(`/endpoints/${endpoint.id}`, { archived: false });
    expect(restored.body.archivedAt).toBeNull();
  });
});

describe('serving configurations', () => {
  it('adds versions 1, 2, ... and never changes one', async () => {
    const endpoint = await created(
      api,
      '/endpoints',
      endpointBody({ config: { engine: 'vllm', weightQuant: 'fp16' } }),
    );
    const path = `/endpoints/${endpoint.id}/configs`;
    const second = await created(api, path, {
      engine: 'vllm',
      engineVersion: '0.10.1',
      weightQuant: 'fp8',
      gpuCount: 1,
      chunkedPrefill: true,
      extra: { gpuMemoryUtilization: 0.9 },
    });
    expect(second).toMatchObject({
      endpointId: endpoint.id,
      version: 2,
      weightQuant: 'fp8',
      chunkedPrefill: true,
      extra: { gpuMemoryUtilization: 0.9 },
      tensorParallel: null,
    });

    const list = await get(path);
    expect(list.body.items.map((config: { version: number }) => config.version)).toEqual([2, 1]);
    expect(list.body.items[1]).toMatchObject({ engine: 'vllm', weightQuant: 'fp16', extra: {} });
    expect((await get(`${path}/2`)).body).toEqual(second);
    expect((await get(`${path}/3`)).status).toBe(404);
    expect((await api.authed.patch(`${path}/2`).send({ weightQuant: 'int4' })).status).toBe(404);
    expect((await del(`${path}/2`)).status).toBe(404);
  });

  it('answers 404 naming the endpoint for the configurations of one that does not exist', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const listed = await get(`/endpoints/${missing}/configs`);
    expect(listed.status).toBe(404);
    expect(JSON.stringify(listed.body)).toContain(`No endpoint ${missing}.`);
    const added = await api.authed
      .post(`/endpoints/${missing}/configs`)
      .send({ engine: 'vllm', weightQuant: 'fp8' });
    expect(added.status).toBe(404);
    expect(JSON.stringify(added.body)).toContain(`No endpoint ${missing}.`);
  });

  it('numbers concurrent additions without gaps or duplicates', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const path = `/endpoints/${endpoint.id}/configs`;
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) => api.authed.post(path).send({ note: `v${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(responses.map((r) => r.body.version).sort()).toEqual([1, 2, 3, 4]);
  });

  it('answers 404 for an unknown endpoint', async () => {
    const path = '/endpoints/00000000-0000-4000-8000-000000000000/configs';
    expect((await get(path)).status).toBe(404);
    expect((await api.authed.post(path).send({})).status).toBe(404);
  });
});

describe('profiles', () => {
  it('creates, lists, reads, updates and deletes a profile', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const body = profileBody(endpoint.id as string, {
      workload: { kind: 'dataset', prompts: [{ prompt: 'Hello', outputTokens: 8 }] },
      load: { kind: 'open', ratePerS: 2.5, arrival: 'gamma', burstiness: 0.5, maxConcurrency: 16 },
      slo: { ttftMs: 500, itlMs: 50 },
      scheduleCron: '0 */6 * * *',
    });
    const profile = await created(api, '/profiles', body);
    expect(profile).toMatchObject({
      ...body,
      warmupRequests: 0,
      timeoutMs: 120_000,
      stallTimeoutMs: 30_000,
      forceOutputLength: true,
      enabled: true,
      scheduleIntervalS: null,
    });
    expect((await get(`/profiles?endpointId=${endpoint.id}`)).body.items).toEqual([profile]);

    const updated = await patch(`/profiles/${profile.id}`, {
      scheduleCron: null,
      scheduleIntervalS: 600,
      enabled: false,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ scheduleCron: null, scheduleIntervalS: 600, enabled: false });
    expect((await get(`/profiles/${profile.id}`)).body).toEqual(updated.body);

    expect((await del(`/profiles/${profile.id}`)).status).toBe(204);
    expect((await get(`/profiles/${profile.id}`)).status).toBe(404);
  });

  it('refuses incoherent profiles, naming the field, also when a patch would make one', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const unbounded = await api.authed
      .post('/profiles')
      .send(profileBody(endpoint.id as string, { requestCount: undefined }));
    expect(unbounded.status).toBe(400);
    expect(unbounded.body.details[0].field).toBe('requestCount');

    const profile = await created(
      api,
      '/profiles',
      profileBody(endpoint.id as string, { scheduleIntervalS: 60 }),
    );
    const twoSchedules = await patch(`/profiles/${profile.id}`, { scheduleCron: '*/5 * * * *' });
    expect(twoSchedules.status).toBe(400);
    expect(twoSchedules.body.details[0].field).toBe('scheduleCron');
    const noEnd = await patch(`/profiles/${profile.id}`, { requestCount: null });
    expect(noEnd.status).toBe(400);

    const unknownEndpoint = await api.authed
      .post('/profiles')
      .send(profileBody('00000000-0000-4000-8000-000000000000'));
    expect(unknownEndpoint.status).toBe(404);
    expect(unknownEndpoint.body.details).toEqual([{ field: 'endpointId', problem: 'names no endpoint' }]);
  });
});

describe('runs', () => {
  it('queues a manual run with the live configuration and the profile snapshot, on the real queue', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody({ config: { weightQuant: 'fp16' } }));
    const live = await created(api, `/endpoints/${endpoint.id}/configs`, { weightQuant: 'fp8' });
    const profile = await created(api, '/profiles', profileBody(endpoint.id as string, { seed: 7 }));

    const run = await created(api, '/runs', { profileId: profile.id });
    expect(run).toMatchObject({
      endpointId: endpoint.id,
      profileId: profile.id,
      configId: live.id,
      status: 'queued',
      trigger: 'manual',
      summary: null,
      config: { version: 2, weightQuant: 'fp8' },
    });
    // The snapshot is the profile minus its row bookkeeping and comparison thresholds (what snapshotOf keeps).
    const {
      enabled: _enabled,
      createdAt: _created,
      updatedAt: _updated,
      comparisonThresholds: _thresholds,
      ...measured
    } = profile;
    expect(run.profileSnapshot).toEqual(measured);

    const job = await api.app.get(RunQueueProducer).queue.getJob(run.id as string);
    expect(job?.data).toEqual({ runId: run.id });

    // A later edit of the profile does not rewrite the queued run's snapshot.
    await patch(`/profiles/${profile.id}`, { requestCount: 999 });
    expect((await get(`/runs/${run.id}`)).body.profileSnapshot.requestCount).toBe(20);
  });

  it('lists runs by endpoint, profile, status and time, with a cursor', async () => {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const profileA = await created(api, '/profiles', profileBody(endpoint.id as string));
    const profileB = await created(api, '/profiles', profileBody(endpoint.id as string));
    const runs = [];
    for (const profile of [profileA, profileB, profileA])
      runs.push(await created(api, '/runs', { profileId: profile.id }));
    await api.prisma.run.update({ where: { id: runs[0].id as string }, data: { status: 'succeeded' } });

    const ids = (response: { body: { items: Array<{ id: string }> } }) =>
      response.body.items.map((item) => item.id);
    expect(ids(await get(`/runs?endpointId=${endpoint.id}`))).toEqual([runs[2].id, runs[1].id, runs[0].id]);
    expect(ids(await get(`/runs?profileId=${profileA.id}`))).toEqual([runs[2].id, runs[0].id]);
    expect(ids(await get(`/runs?endpointId=${endpoint.id}&status=succeeded`))).toEqual([runs[0].id]);
    expect(ids(await get(`/runs?endpointId=${endpoint.id}&status=queued&status=running`))).toEqual([
      runs[2].id,
      runs[1].id,
    ]);
    expect(
      ids(await get(`/runs?endpointId=${endpoint.id}&from=${runs[1].queuedAt}&to=${runs[2].queuedAt}`)),
    ).toEqual([runs[1].id]);
    expect(ids(await get(`/runs?endpointId=${endpoint.id}&to=2000-01-01T00:00:00Z`))).toEqual([]);

    const first = await get(`/runs?endpointId=${endpoint.id}&limit=2`);
    expect(ids(first)).toEqual([runs[2].id, runs[1].id]);
    const second = await get(`/runs?endpointId=${endpoint.id}&limit=2&cursor=${first.body.nextCursor}`);
    expect(ids(second)).toEqual([runs[0].id]);
    expect(second.body.nextCursor).toBeNull();

    expect((await get(`/runs?status=done`)).body.details[0]).toEqual({
      field: 'status',
      problem:
        'each value in status must be one of the following values: queued, running, succeeded, partial, failed, aborted',
    });
  });

  it('answers 404 for an unknown run and for an unknown profile, naming the field', async () => {
    expect((await get('/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const unknown = await api.authed
      .post('/runs')
      .send({ profileId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual([{ field: 'profileId', problem: 'names no profile' }]);
  });
});
