import { HISTOGRAM_RELATIVE_ERROR, readRunRequests } from '@teapot/db';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { percentile, requestMetrics } from '@teapot/measure';
import { created, endpointBody, profileBody, startApiForFile } from './api';

const api = startApiForFile();
const runs = { fp16: [] as string[], fp8: [] as string[] };
const profiles = { fp16: '', fp8: '' };
const T0 = Date.UTC(2026, 10, 2);
const from = new Date(T0).toISOString();
const to = new Date(T0 + 86_400_000).toISOString();

function post(body: unknown, key = api.auth) {
  return api.http
    .post('/comparisons')
    .set('authorization', key)
    .send(body as object);
}

/** Every token's ITL (us) of these runs, sorted, from their stored raw records. */
async function exactItl(runIds: string[]): Promise<Float64Array> {
  const samples: number[] = [];
  for (const id of runIds)
    for (const record of await readRunRequests(api.prisma, id)) samples.push(...requestMetrics(record).itlUs);
  return Float64Array.from(samples).sort();
}

/** The exact P50 ITL (ms) over every token of these runs. */
async function exactItlP50(runIds: string[]): Promise<number> {
  return percentile(await exactItl(runIds), 0.5) / 1000;
}

beforeAll(async () => {
  for (const quant of ['fp16', 'fp8'] as const) {
    const endpoint = await created(
      api,
      '/endpoints',
      endpointBody({ config: { weightQuant: quant, gpuModel: 'H100 SXM', gpuCount: 1, tensorParallel: 1 } }),
    );
    const endpointId = endpoint.id as string;
    const profile = await created(api, '/profiles', profileBody(endpointId));
    profiles[quant] = profile.id as string;
    const config = await api.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } });
    for (let i = 0; i < 3; i++) {
      const gapScale = quant === 'fp8' ? 0.5 : 1;
      const runId = await storeMeasuredRun(
        api.prisma,
        {
          endpointId,
          profileId: profile.id as string,
          configId: config.id,
          startedAt: new Date(T0 + (i + 1) * 3_600_000),
        },
        syntheticRunResult({ requests: 20, tokensPerRequest: 64, seed: runs[quant].length + 1, gapScale }),
      );
      runs[quant].push(runId);
    }
  }
}, 60_000);

describe('POST /comparisons', () => {
  it('compares FP16 with FP8 by configuration filter: values, interval, verdicts and the roofline floor', async () => {
    const response = await post({
      baseline: { from, to, config: { weightQuant: ['fp16'] } },
      candidate: { from, to, config: { weightQuant: ['fp8'] } },
      metrics: ['itl', 'output_tokens_per_s'],
      statistics: ['p50'],
    });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.baseline.runIds).toEqual(runs.fp16);
    expect(body.candidate.runIds).toEqual(runs.fp8);
    expect(body.resampling.unit).toBe('requests');
    expect(body.configDifferences).toEqual([
      { field: 'weightQuant', baseline: ['fp16'], candidate: ['fp8'] },
    ]);
    const itl = body.metrics.find((m: { metric: string }) => m.metric === 'itl');
    const [exactB, exactC] = [await exactItlP50(runs.fp16), await exactItlP50(runs.fp8)];
    expect(Math.abs(itl.baseline - exactB) / exactB).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    expect(Math.abs(itl.candidate - exactC) / exactC).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    expect(itl.relativeDelta).toBeLessThan(-0.45);
    expect(itl.ci[1]).toBeLessThan(0);
    expect(itl.verdict).toBe('improved');
    expect(itl.pValue).toBeLessThan(1e-6);
    expect(body.metrics.find((m: { metric: string }) => m.metric === 'output_tokens_per_s').verdict).toBe(
      'improved',
    );
    expect(body.verdict).toBe('improved');
    expect(body.roofline.baseline.floorMs).toBeCloseTo(((8.03e9 * 2) / 3.35e12) * 1000, 9);
    expect(body.roofline.candidate.floorMs).toBeCloseTo(((8.03e9 * 1) / 3.35e12) * 1000, 9);
    expect(body.roofline.baseline.achievedFraction).toBeGreaterThan(0);
    expect(body.roofline.baseline.achievedFraction).toBeLessThan(1);
  });

  it("returns each side's ITL distribution as CDF points within the histogram error of its tokens", async () => {
    const response = await post({
      baseline: { runIds: runs.fp16 },
      candidate: { runIds: runs.fp8 },
      metrics: ['itl'],
    });
    expect(response.status).toBe(200);
    const { distributions } = response.body;
    expect(distributions).toMatchObject({ metric: 'itl', unit: 'ms' });
    for (const side of ['baseline', 'candidate'] as const) {
      const exact = await exactItl(runs[side === 'baseline' ? 'fp16' : 'fp8']);
      const { samples, points } = distributions[side] as {
        samples: number;
        points: Array<{ value: number; fraction: number }>;
      };
      expect(samples).toBe(exact.length);
      expect(points.length).toBeGreaterThan(20);
      expect(points.length).toBeLessThanOrEqual(200);
      for (const { value, fraction } of points) {
        const want = percentile(exact, fraction) / 1000;
        expect(Math.abs(value - want)).toBeLessThanOrEqual(want * HISTOGRAM_RELATIVE_ERROR + 0.0005);
      }
    }
  });

  it('takes run ids as sides, answers a read-scope key, and gives the same answer twice', async () => {
    const readKey = (
      await created<{ key: string }>(api, '/api-keys', { name: 'compare-reader', scope: 'read' })
    ).key;
    const body = { baseline: { runIds: runs.fp16 }, candidate: { runIds: runs.fp8 }, metrics: ['tpot'] };
    const first = await post(body, `Bearer ${readKey}`);
    expect(first.status).toBe(200);
    expect((await post(body)).body).toEqual(first.body);
    expect(first.body.metrics.map((m: { statistic: string }) => m.statistic)).toEqual(['p50', 'p90', 'p99']);
  });

  it('answers an empty side with a reason, and bad input with a 400 naming the field', async () => {
    const empty = await post({
      baseline: { from, to },
      candidate: { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' },
    });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      metrics: [],
      verdict: 'inconclusive',
      reason: 'candidate: no measured run matches',
    });

    const good = { baseline: { runIds: runs.fp16 }, candidate: { runIds: runs.fp8 } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ baseline: undefined }, 'baseline'],
      [{ baseline: {} }, 'baseline.from'],
      [{ candidate: { from: 'yesterday' } }, 'candidate.from'],
      [{ candidate: { from, to: from } }, 'candidate.to'],
      [{ candidate: { runIds: ['nope'] } }, 'candidate.runIds'],
      [{ candidate: { from, config: { gpuCount: ['two'] } } }, 'candidate.config.gpuCount'],
      [{ candidate: { from, config: { vibes: ['x'] } } }, 'candidate.config.vibes'],
      [{ metrics: ['vibes'] }, 'metrics'],
      [{ statistics: ['p42'] }, 'statistics'],
      [{ thresholds: { 'itl.p42': 0.1 } }, 'thresholds.itl.p42'],
      [{ thresholds: { itl: 'big' } }, 'thresholds.itl'],
      [{ iterations: 5 }, 'iterations'],
      [{ resample: 'tokens' }, 'resample'],
      [{ verdict: 'improved' }, 'verdict'],
    ];
    for (const [change, field] of cases) {
      const response = await post({ ...good, ...change });
      expect([change, response.status]).toEqual([change, 400]);
      expect([change, response.body.details.map((d: { field: string }) => d.field)]).toEqual([
        change,
        expect.arrayContaining([field]),
      ]);
    }
  });

  it("judges rows against the profiles' thresholds unless the request sets its own", async () => {
    const patch = (id: string, comparisonThresholds: unknown) =>
      api.authed.patch(`/profiles/${id}`).send({ comparisonThresholds });
    type Row = { metric: string; verdict: string; threshold: Record<string, unknown> };
    const rowOf = (body: { metrics: Row[] }, metric: string) =>
      body.metrics.find((m) => m.metric === metric)!;
    const body = {
      baseline: { runIds: runs.fp16 },
      candidate: { runIds: runs.fp8 },
      metrics: ['itl', 'ttft'],
      statistics: ['p50'],
    };
    try {
      // FP8's P50 ITL is about half FP16's: improved against 5%, unchanged against 60%.
      expect((await patch(profiles.fp16, { 'itl.p50': 0.6, itl: 0.01 })).status).toBe(200);
      const fp8 = await patch(profiles.fp8, { 'itl.p50': 0.8 });
      expect(fp8.status).toBe(200);
      expect(fp8.body.comparisonThresholds).toEqual({ 'itl.p50': 0.8 });
      const stored = await api.prisma.profile.findUniqueOrThrow({ where: { id: profiles.fp16 } });
      expect(stored.comparisonThresholds).toEqual({ 'itl.p50': 0.6, itl: 0.01 });

      const byProfile = await post(body);
      expect(byProfile.status).toBe(200);
      expect(rowOf(byProfile.body, 'itl')).toMatchObject({
        verdict: 'unchanged',
        threshold: { value: 0.6, kind: 'relative', source: 'profile', profileId: profiles.fp16 },
      });
      expect(byProfile.body.notes).toContain(
        'the profiles set different thresholds for itl.p50 (0.6, 0.8): the strictest, 0.6, applies',
      );
      expect(rowOf(byProfile.body, 'ttft').threshold).toEqual({
        value: 0.05,
        kind: 'relative',
        source: 'default',
      });

      const byRequest = await post({ ...body, thresholds: { itl: 0.1 } });
      expect(rowOf(byRequest.body, 'itl')).toMatchObject({
        verdict: 'improved',
        threshold: { value: 0.1, kind: 'relative', source: 'request' },
      });

      const cases: Array<[unknown, string]> = [
        [{ 'itl.p42': 0.1 }, 'comparisonThresholds.itl.p42'],
        [{ vibes: 0.1 }, 'comparisonThresholds.vibes'],
        [{ 'error_rate.p99': 0.1 }, 'comparisonThresholds.error_rate.p99'],
        [{ ttft: -1 }, 'comparisonThresholds.ttft'],
        [{ ttft: '5%' }, 'comparisonThresholds.ttft'],
        [[0.1], 'comparisonThresholds'],
        [null, 'comparisonThresholds'],
      ];
      for (const [value, field] of cases) {
        const response = await patch(profiles.fp16, value);
        expect([value, response.status]).toEqual([value, 400]);
        expect([value, response.body.details.map((d: { field: string }) => d.field)]).toEqual([
          value,
          [field],
        ]);
      }
      const badCreate = await api.authed
        .post('/profiles')
        .send(profileBody(stored.endpointId, { comparisonThresholds: { 'ttft.p99/p50': 0.1 } }));
      expect(badCreate.status).toBe(400);
      expect(badCreate.body.details).toEqual([
        {
          field: 'comparisonThresholds.ttft.p99/p50',
          problem: expect.stringContaining('names no statistic of ttft'),
        },
      ]);
    } finally {
      await patch(profiles.fp16, {});
      await patch(profiles.fp8, {});
    }
  });
});
