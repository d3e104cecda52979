import { recomputeChangePoints } from '@teapot/analysis';
import { ChangePointStore } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { created, endpointBody, profileBody, type RunningApi, startApi } from './api';

let api: RunningApi;
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

beforeAll(async () => {
  api = await startApi();
  endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
  profileId = (await created(api, '/profiles', profileBody(endpointId))).id as string;
  // Stored through the real run writer: ITL 25% slower from run 20 on.
  for (let i = 0; i < RUNS; i++) {
    const runId = await storeMeasuredRun(
      api.prisma,
      { endpointId, profileId, startedAt: new Date(T0 + i * HOUR) },
      syntheticRunResult({ requests: 10, tokensPerRequest: 48, seed: i + 1, gapScale: i < STEP ? 1 : 1.25 }),
    );
    runIds.push(runId);
  }
  await recomputeChangePoints(new ChangePointStore(api.prisma), { endpointId, profileId });
}, 120_000);

afterAll(() => api?.close());

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
