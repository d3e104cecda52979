import { ChangePointStore, type ChangePoint, type Database } from '@teapot/db';
import { openTestDatabase, storeEndpoint, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { listChangePoints, recomputeChangePoints } from './change-points';
import { AnalysisInputError } from './errors';

let db: Database;
let endpointId: string;
let profileId: string;
const runIds: string[] = [];
const startedAt: Date[] = [];
const T0 = Date.UTC(2026, 10, 2);
const HOUR = 3_600_000;
const RUNS = 40;
const STEP = 24;

async function storeRun(at: Date, seed: number, scale: number): Promise<string> {
  return storeMeasuredRun(
    db,
    { endpointId, profileId, startedAt: at },
    syntheticRunResult({ requests: 20, tokensPerRequest: 64, seed, gapScale: scale }),
  );
}

beforeAll(async () => {
  db = await openTestDatabase();
  endpointId = await storeEndpoint(db);
  profileId = (
    await db.prisma.profile.create({
      data: { name: 'p', endpointId, workload: {}, load: {}, requestCount: 20 },
    })
  ).id;
  // ITL 30% slower from run 24 on: a step every mode must place at that run.
  for (let i = 0; i < RUNS; i++) {
    startedAt.push(new Date(T0 + i * HOUR));
    runIds.push(await storeRun(startedAt[i], i + 1, i < STEP ? 1 : 1.3));
  }
}, 120_000);

afterAll(() => db?.close());

const itlP99 = (points: ChangePoint[], mode: string) =>
  points.filter((c) => c.metric === 'itl' && c.statistic === 'p99' && c.mode === mode);

describe('recomputeChangePoints', () => {
  let first: Awaited<ReturnType<typeof recomputeChangePoints>>;
  beforeAll(async () => {
    first = await recomputeChangePoints(new ChangePointStore(db), { endpointId, profileId });
  }, 60_000);

  it('finds the step of the stored runs in both modes, at the run where it happened', async () => {
    expect(first.runs).toBe(RUNS);
    // Otava's t-test with its default magnitude 0 also flags sub-percent shifts of these very steady
    // series; the robust mode reports only the real step.
    expect(itlP99(first.detected, 'robust')).toHaveLength(1);
    for (const mode of ['otava', 'robust']) {
      const step = itlP99(first.detected, mode).find((c) => c.runId === runIds[STEP]) as ChangePoint;
      expect(step).toMatchObject({
        kind: 'step',
        runId: runIds[STEP],
        previousRunId: runIds[STEP - 1],
        at: startedAt[STEP],
        unit: 'ms',
      });
      if (mode === 'robust') expect(step).toMatchObject({ runsBefore: STEP, runsAfter: RUNS - STEP });
      expect(step.pValue).toBeLessThan(0.001);
      expect(step.magnitude).toBeGreaterThan(0.2);
    }
    // The before/after levels are the runs' own P99 ITL as the run writer stored them.
    const { rows } = await db.pool.query<{ p99: number }>(
      'SELECT itl_p99_ms AS p99 FROM runs WHERE id = ANY($1::uuid[])',
      [runIds.slice(0, STEP)],
    );
    const mean = rows.reduce((s, r) => s + r.p99, 0) / rows.length;
    const robust = itlP99(first.detected, 'robust')[0];
    expect(robust.meanBefore).toBeGreaterThan(0.98 * mean);
    expect(robust.meanBefore).toBeLessThan(1.02 * mean);
  });

  it('stores what it found, and a recomputation with no new run detects nothing new', async () => {
    const stored = await listChangePoints(new ChangePointStore(db), {
      endpointIds: [endpointId],
      limit: 1_000,
    });
    expect(stored.changePoints).toHaveLength(first.stored);
    const again = await recomputeChangePoints(new ChangePointStore(db), { endpointId, profileId });
    expect(again).toMatchObject({ detected: [], updated: [], retracted: [], stored: first.stored });
  });

  it('writes what onNews writes in the same transaction, and rolls both back when it throws', async () => {
    await db.pool.query('DELETE FROM change_points');
    await expect(
      recomputeChangePoints(
        new ChangePointStore(db),
        { endpointId, profileId },
        {
          onNews: async (client) => {
            await client.query('SELECT 1');
            throw new Error('outbox down');
          },
        },
      ),
    ).rejects.toThrow('outbox down');
    expect((await listChangePoints(new ChangePointStore(db), {})).changePoints).toEqual([]);
    const seen: string[] = [];
    await recomputeChangePoints(
      new ChangePointStore(db),
      { endpointId, profileId },
      {
        onNews: async (client, news) => {
          for (const changePoint of news.detected) {
            const { rows } = await client.query('SELECT id FROM change_points WHERE id = $1', [
              changePoint.id,
            ]);
            if (rows.length === 1) seen.push(changePoint.id);
          }
        },
      },
    );
    expect(seen.length).toBeGreaterThan(0);
  });

  it('retracts a stored change point the recomputation no longer finds, and keeps the one it finds', async () => {
    const [robust] = itlP99(
      (await listChangePoints(new ChangePointStore(db), { metric: 'itl', statistic: 'p99', mode: 'robust' }))
        .changePoints,
      'robust',
    );
    await db.pool.query(
      `INSERT INTO change_points (id, endpoint_id, profile_id, metric, statistic, mode, kind, at, run_id, runs_before,
                                  runs_after, mean_before, mean_after, magnitude, p_value)
       SELECT gen_random_uuid(), endpoint_id, profile_id, metric, statistic, mode, kind, $2, $3, 1, 1, 1, 1, 0, 1
         FROM change_points WHERE id = $1`,
      [robust.id, startedAt[5], runIds[5]],
    );
    const result = await recomputeChangePoints(new ChangePointStore(db), { endpointId, profileId });
    expect(result.retracted.map((c) => c.runId)).toEqual([runIds[5]]);
    const left = await listChangePoints(new ChangePointStore(db), {
      metric: 'itl',
      statistic: 'p99',
      mode: 'robust',
    });
    expect(left.changePoints.map((c) => c.id)).toEqual([robust.id]);
    const { rows } = await db.pool.query(
      'SELECT 1 FROM change_points WHERE run_id = $1 AND retracted_at IS NOT NULL',
      [runIds[5]],
    );
    expect(rows).toHaveLength(1);
  });
});

describe('listChangePoints', () => {
  it('filters by series, mode, kind and time, newest first, bounded', async () => {
    const all = await listChangePoints(new ChangePointStore(db), { limit: 1_000 });
    expect(all.changePoints.length).toBeGreaterThan(2);
    const one = await listChangePoints(new ChangePointStore(db), { limit: 1 });
    expect(one).toMatchObject({ truncated: true });
    expect(one.changePoints).toHaveLength(1);
    const later = await listChangePoints(new ChangePointStore(db), {
      mode: 'robust',
      from: new Date(startedAt[STEP].getTime() + 1),
    });
    expect(later.changePoints).toEqual([]);
    const robust = await listChangePoints(new ChangePointStore(db), {
      mode: 'robust',
      kind: 'step',
      metric: 'itl',
      statistic: 'p99',
    });
    expect(robust.changePoints).toHaveLength(1);
    expect(
      await listChangePoints(new ChangePointStore(db), {
        endpointIds: ['00000000-0000-0000-0000-000000000000'],
      }),
    ).toEqual({
      changePoints: [],
      truncated: false,
    });
  });

  it.each([
    [{ metric: 'itl_p99' }, 'metric'],
    [{ metric: 'output_tokens_per_s', statistic: 'p99' }, 'statistic'],
    [{ statistic: 'p42' }, 'statistic'],
    [{ mode: 'hunter' }, 'mode'],
    [{ kind: 'spike' }, 'kind'],
    [{ from: new Date(T0), to: new Date(T0) }, 'to'],
    [{ from: new Date(NaN) }, 'from'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 1_001 }, 'limit'],
  ])('refuses %j naming %s', async (query, parameter) => {
    const error = await listChangePoints(new ChangePointStore(db), query).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalysisInputError);
    expect((error as AnalysisInputError).parameter).toBe(parameter);
  });
});
