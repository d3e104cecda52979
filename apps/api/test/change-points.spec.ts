import { recomputeChangePoints } from '@teapot/analysis';
import { ChangePointStore } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();
let endpointId: string;
let profileId: string;
const runIds: string[] = [];
const T0 = Date.UTC(2026, 10, 2);
const HOUR = 3_600_000;
const RUNS = 36;
const STEP = 20;

async function get(query: Record<string, string>) {
  return api.authed.get(`/change-points?${new URLSearchParams(query)}`);
}

/** Stored through the real run writer: ITL 25% slower from run STEP on; the runs' configuration versions. */
async function storeSteppedSeries(
  endpoint: string,
  profile: string,
  configs: { before?: string; after?: string } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const runId = await storeMeasuredRun(
      api.prisma,
      {
        endpointId: endpoint,
        profileId: profile,
        configId: i < STEP ? configs.before : configs.after,
        startedAt: new Date(T0 + i * HOUR),
      },
      syntheticRunResult({ requests: 10, tokensPerRequest: 48, seed: i + 1, gapScale: i < STEP ? 1 : 1.25 }),
    );
    ids.push(runId);
  }
  await recomputeChangePoints(new ChangePointStore(api.prisma), { endpointId: endpoint, profileId: profile });
  return ids;
}

// A second series whose step coincides with a new configuration version and a deployment.
let movedEndpointId: string;

beforeAll(async () => {
  endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
  profileId = (await created(api, '/profiles', profileBody(endpointId))).id as string;
  runIds.push(...(await storeSteppedSeries(endpointId, profileId)));

  movedEndpointId = (await created(api, '/endpoints', endpointBody())).id as string;
  const movedProfileId = (await created(api, '/profiles', profileBody(movedEndpointId))).id as string;
  const config = (version: number, weightQuant: string, engineVersion: string) =>
    api.prisma.servingConfig.create({
      data: { endpointId: movedEndpointId, version, weightQuant, engine: 'vllm', engineVersion },
    });
  const [fp16, fp8] = [await config(6, 'fp16', '0.9'), await config(7, 'fp8', '0.10')];
  await api.prisma.deployment.create({
    data: {
      endpointId: movedEndpointId,
      label: 'moved to FP8',
      // Between the last run before the step and the first after it.
      effectiveAt: new Date(T0 + (STEP - 0.5) * HOUR),
      runsPerProfile: 1,
      profileIds: [movedProfileId],
      firstRunDelayS: 0,
      baselineRuns: 3,
      threshold: 0.1,
    },
  });
  await storeSteppedSeries(movedEndpointId, movedProfileId, { before: fp16.id, after: fp8.id });
}, 180_000);

describe('GET /change-points', () => {
  it('reports the step of the stored runs at the run where it happened', async () => {
    const response = await get({ endpointId, metric: 'itl', statistic: 'p99', mode: 'robust' });
    expect(response.status).toBe(200);
    expect(response.body.truncated).toBe(false);
    expect(response.body.changePoints).toHaveLength(1);
    const [step] = response.body.changePoints;
    expect(step).toMatchObject({
      endpointId,
      profileId,
      metric: 'itl',
      statistic: 'p99',
      unit: 'ms',
      mode: 'robust',
      kind: 'step',
      runId: runIds[STEP],
      previousRunId: runIds[STEP - 1],
      at: new Date(T0 + STEP * HOUR).toISOString(),
      runsBefore: STEP,
      runsAfter: RUNS - STEP,
      endRunId: null,
    });
    expect(step.magnitude).toBeGreaterThan(0.15);
    expect(step.magnitude).toBeLessThan(0.35);
    expect(step.pValue).toBeLessThan(0.001);
    const otava = await get({ endpointId, metric: 'itl', statistic: 'p99', mode: 'otava' });
    expect(otava.body.changePoints.map((c: { runId: string }) => c.runId)).toContain(runIds[STEP]);
  });

  it('filters by time range and kind, and answers an empty list when nothing matches', async () => {
    const before = await get({ endpointId, mode: 'robust', to: new Date(T0 + STEP * HOUR).toISOString() });
    expect(before.body.changePoints).toEqual([]);
    const drifts = await get({ endpointId, kind: 'drift' });
    expect(drifts.body).toEqual({ changePoints: [], truncated: false });
    const limited = await get({ endpointId, limit: '1' });
    expect(limited.body.changePoints).toHaveLength(1);
    expect(limited.body.truncated).toBe(true);
  });

  it.each([
    [{ metric: 'itl_p99' }, 'metric'],
    [{ metric: 'output_tokens_per_s', statistic: 'p99' }, 'statistic'],
    [{ mode: 'hunter' }, 'mode'],
    [{ kind: 'spike' }, 'kind'],
    [{ from: '2026-11-03T00:00:00Z', to: '2026-11-02T00:00:00Z' }, 'to'],
    [{ from: 'yesterday' }, 'from'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '5000' }, 'limit'],
    [{ endpointId: 'not-a-uuid' }, 'endpointId'],
  ])('answers 400 naming the parameter for %j', async (query, parameter) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(parameter);
  });

  it('needs a key', async () => {
    expect((await api.http.get('/change-points')).status).toBe(401);
  });
});

describe('attribution', () => {
  const itlStep = { metric: 'itl', statistic: 'p99', mode: 'robust' };

  it('says a change with no configuration change and no deployment around it is unexplained', async () => {
    const [step] = (await get({ endpointId, ...itlStep })).body.changePoints;
    expect(step.attribution).toEqual({
      configBefore: null,
      configAfter: null,
      configChanges: [],
      deployments: [],
      explained: false,
      summary: 'no recorded change: unexplained',
    });
  });

  it('names the configuration version, the fields it changed and the deployment, for each change of a page', async () => {
    // Both endpoints in one page: each change point gets its own series' attribution.
    const page = await api.authed.get(
      `/change-points?${new URLSearchParams([
        ['endpointId', endpointId],
        ['endpointId', movedEndpointId],
        ...Object.entries(itlStep),
      ])}`,
    );
    const byEndpoint = new Map(
      page.body.changePoints.map((c: { endpointId: string }) => [c.endpointId, c] as const),
    );
    expect(byEndpoint.get(endpointId)).toMatchObject({ attribution: { explained: false } });
    expect(byEndpoint.get(movedEndpointId)).toMatchObject({
      attribution: {
        configBefore: 6,
        configAfter: 7,
        configChanges: [
          { field: 'engineVersion', before: '0.9', after: '0.10' },
          { field: 'weightQuant', before: 'fp16', after: 'fp8' },
        ],
        deployments: [
          {
            label: 'moved to FP8',
            version: null,
            effectiveAt: new Date(T0 + (STEP - 0.5) * HOUR).toISOString(),
          },
        ],
        explained: true,
        summary:
          "coincides with config v7 (from v6: engineVersion 0.9 -> 0.10, weightQuant fp16 -> fp8), deployment 'moved to FP8'",
      },
    });
  });

  it('GET /change-points/{id} answers one change point with its attribution, and 404 or 400 otherwise', async () => {
    const [listed] = (await get({ endpointId: movedEndpointId, ...itlStep })).body.changePoints;
    const one = await api.authed.get(`/change-points/${listed.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...listed, retractedAt: null });
    const missing = await api.authed.get('/change-points/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    const malformed = await api.authed.get('/change-points/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('id');
  });

  it('still answers a retracted change point by id, saying when it was retracted', async () => {
    const [listed] = (await get({ endpointId, ...itlStep })).body.changePoints;
    await api.prisma.$executeRaw`UPDATE change_points SET retracted_at = now() WHERE id = ${listed.id}::uuid`;
    try {
      const one = await api.authed.get(`/change-points/${listed.id}`);
      expect(one.body.retractedAt).toEqual(expect.any(String));
      expect(one.body.attribution.summary).toBe('no recorded change: unexplained');
    } finally {
      await api.prisma
        .$executeRaw`UPDATE change_points SET retracted_at = NULL WHERE id = ${listed.id}::uuid`;
    }
  });
});
