import { AnalysisQueueProducer, RunQueueProducer, verificationJobId } from '@teapot/jobs';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();

const get = (path: string) => api.authed.get(path);
const post = (path: string, body: object) => api.authed.post(path).send(body);

async function endpointWithProfiles(count: number) {
  const endpoint = await created(api, '/endpoints', endpointBody({ config: { weightQuant: 'fp8' } }));
  const profiles = [];
  for (let i = 0; i < count; i++)
    profiles.push(await created(api, '/profiles', profileBody(endpoint.id as string)));
  return { endpoint, profiles };
}

describe('deployments', () => {
  it('adds the configuration version, queues runs of every profile and the verification', async () => {
    const { endpoint, profiles } = await endpointWithProfiles(2);
    const settings = {
      runsPerProfile: 2,
      firstRunDelayS: 120,
      baselineRuns: 4,
      threshold: 0.2,
      includeSaturated: true,
    };
    const before = Date.now();
    const deployment = await created(api, '/deployments', {
      endpointId: endpoint.id,
      label: 'moved to FP16 weights',
      version: 'v2',
      config: { weightQuant: 'fp16', note: 'rollback of fp8' },
      settings,
    });
    expect(deployment).toMatchObject({
      endpointId: endpoint.id,
      label: 'moved to FP16 weights',
      version: 'v2',
      verdict: 'pending',
      verification: null,
      // Every setting as sent, and every profile of the endpoint (the request named none).
      settings: { ...settings, profileIds: profiles.map((p) => p.id) },
      config: { version: 2, weightQuant: 'fp16', endpointId: endpoint.id },
    });
    expect(Date.parse(deployment.effectiveAt as string)).toBeGreaterThanOrEqual(before - 5);
    const runs = deployment.runs as Array<{ id: string; profileId: string; status: string }>;
    expect(runs).toHaveLength(4);
    expect(runs.map((r) => r.profileId).sort()).toEqual(
      [profiles[0].id, profiles[0].id, profiles[1].id, profiles[1].id].sort(),
    );
    for (const run of runs) {
      const detail = (await get(`/runs/${run.id}`)).body;
      expect(detail).toMatchObject({ trigger: 'deployment', status: 'queued' });
      expect(detail.config.version).toBe(2);
    }
    expect((await get(`/endpoints/${endpoint.id}/configs`)).body.items[0].version).toBe(2);

    const runQueue = api.app.get(RunQueueProducer).queue;
    const job = await runQueue.getJob(runs[0].id);
    expect(await job?.getState()).toBe('delayed');
    expect((job?.timestamp ?? 0) + (job?.opts.delay ?? 0)).toBeGreaterThanOrEqual(before + 119_000);
    const verification = await api.app
      .get(AnalysisQueueProducer)
      .queue.getJob(verificationJobId(deployment.id as string));
    expect(verification?.data).toEqual({ deploymentId: deployment.id });
    expect(await verification?.getState()).toBe('delayed');

    expect((await get(`/deployments/${deployment.id}`)).body).toEqual(deployment);
    const page = (await get(`/deployments?endpointId=${endpoint.id}&verdict=pending`)).body;
    expect(page.items.map((d: { id: string }) => d.id)).toEqual([deployment.id]);
    expect((await get(`/deployments?endpointId=${endpoint.id}&verdict=regressed`)).body.items).toEqual([]);
  });

  it('defaults: every enabled profile, no new configuration, effective now', async () => {
    const { endpoint, profiles } = await endpointWithProfiles(2);
    await api.authed.patch(`/profiles/${profiles[1].id}`).send({ enabled: false }).expect(200);
    const deployment = await created(api, '/deployments', {
      endpointId: endpoint.id,
      label: 'vLLM 0.11 -> 0.12',
    });
    expect(deployment).toMatchObject({
      config: null,
      version: null,
      settings: {
        runsPerProfile: 3,
        firstRunDelayS: 30,
        baselineRuns: 5,
        threshold: 0.1,
        includeSaturated: false,
        profileIds: [profiles[0].id],
      },
    });
    expect(deployment.runs).toHaveLength(3);
    expect((await get(`/endpoints/${endpoint.id}/configs`)).body.items).toHaveLength(1);
  });

  it('keeps the verdict filter on every page, not only the first', async () => {
    const { endpoint } = await endpointWithProfiles(1);
    const made = [];
    for (const label of ['first', 'second', 'third'])
      made.push(await created(api, '/deployments', { endpointId: endpoint.id, label }));
    await api.prisma.deployment.update({
      where: { id: made[1].id as string },
      data: { verdict: 'verified' },
    });
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = (
        await get(`/deployments?endpointId=${endpoint.id}&verdict=pending&limit=1${cursor}`).expect(200)
      ).body;
      seen.push(...page.items.map((d: { label: string }) => d.label));
      cursor = page.nextCursor ? `&cursor=${page.nextCursor}` : '';
    } while (cursor);
    expect(seen).toEqual(['third', 'first']);
  });

  it('names the field of every refusal', async () => {
    const { endpoint } = await endpointWithProfiles(1);
    const other = await endpointWithProfiles(1);
    const bare = await created(api, '/endpoints', endpointBody());
    // A sweep of listed points has no capacity to verify: an endpoint with only one has no verification profile.
    const sweeping = await created(api, '/endpoints', endpointBody());
    const sweepProfile = await created(
      api,
      '/profiles',
      profileBody(sweeping.id as string, { sweep: { kind: 'points', dimension: 'rate', points: [1, 2] } }),
    );
    const cases: Array<[object, string, RegExp]> = [
      [{ label: 'x' }, 'endpointId', /required/],
      [{ endpointId: endpoint.id }, 'label', /required/],
      [{ endpointId: endpoint.id, label: 'x', effectiveAt: '2999-01-01T00:00:00Z' }, 'effectiveAt', /future/],
      [{ endpointId: endpoint.id, label: 'x', effectiveAt: 'yesterday' }, 'effectiveAt', /ISO 8601/],
      [{ endpointId: endpoint.id, label: 'x', settings: [] }, 'settings', /object/],
      [
        { endpointId: endpoint.id, label: 'x', settings: { runsPerProfile: 0 } },
        'settings.runsPerProfile',
        /1/,
      ],
      [{ endpointId: endpoint.id, label: 'x', settings: { threshold: -1 } }, 'settings.threshold', /0.001/],
      [
        { endpointId: endpoint.id, label: 'x', settings: { includeSaturated: 'yes' } },
        'settings.includeSaturated',
        /boolean/,
      ],
      [
        { endpointId: endpoint.id, label: 'x', settings: { profileIds: [other.profiles[0].id] } },
        'settings.profileIds',
        /profiles of endpoint/,
      ],
      [
        { endpointId: bare.id, label: 'x' },
        'settings.profileIds',
        /no enabled single-load or capacity-search/,
      ],
      [
        { endpointId: sweeping.id, label: 'x' },
        'settings.profileIds',
        /no enabled single-load or capacity-search/,
      ],
      [
        { endpointId: sweeping.id, label: 'x', settings: { profileIds: [sweepProfile.id] } },
        'settings.profileIds',
        /names sweep profile .*a list of points/,
      ],
      [{ endpointId: endpoint.id, label: 'x', config: { gpuCount: 0 } }, 'config.gpuCount', /1/],
    ];
    for (const [body, field, problem] of cases) {
      const response = await post('/deployments', body);
      expect(response.status).toBe(400);
      const problems = (response.body.details as Array<{ field: string; problem: string }>)
        .filter((d) => d.field === field)
        .map((d) => d.problem);
      expect({ body, problems }).toEqual({
        body,
        problems: expect.arrayContaining([expect.stringMatching(problem)]),
      });
    }
    const missing = await post('/deployments', {
      endpointId: '00000000-0000-4000-8000-000000000000',
      label: 'x',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.details).toEqual([{ field: 'endpointId', problem: 'names no endpoint' }]);
    const noProfile = await post('/deployments', {
      endpointId: endpoint.id,
      label: 'x',
      settings: { profileIds: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(noProfile.status).toBe(404);
    expect((await get('/deployments/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/deployments/nope')).status).toBe(400);
    expect((await get('/deployments?verdict=maybe')).body.details[0].field).toBe('verdict');
  });

  it('refuses an archived endpoint with 409', async () => {
    const { endpoint } = await endpointWithProfiles(1);
    await api.authed.patch(`/endpoints/${endpoint.id}`).send({ archived: true }).expect(200);
    const response = await post('/deployments', { endpointId: endpoint.id, label: 'x' });
    expect(response.status).toBe(409);
    expect(response.body.message).toContain('archived');
  });
});
