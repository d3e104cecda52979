import { changePointAttribution, ChangePointStore, type ChangePoint, type Database } from '@teapot/db';
import { openTestDatabase, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { withAttribution } from './change-point-attribution';
import { listChangePoints, recomputeChangePoints } from './change-points';
import { AnalysisInputError } from './errors';
import { storeSweep, storeSweepPair } from './test-support/stored-sweeps';
import { HOUR, T0 } from './test-support/stretched-runs';

let db: Database;
let store: ChangePointStore;
let endpointId: string;
let profileId: string;
let configs: Record<'fp16' | 'fp8', string>;
/** The capacity searches of the series, oldest first. */
const searches: string[] = [];
const SEARCHES = 30;
/** From this search on the endpoint serves FP8: 40% more traffic within the SLO, 30% cheaper a token. */
const STEP = 16;

/** A capacity search's own spread: a few percent from search to search (converged to 5%). */
const wobble = (i: number) => 1 + 0.03 * Math.sin(i * 1.7);

const at = (i: number) => new Date(T0 + i * 6 * HOUR);

beforeAll(async () => {
  db = await openTestDatabase();
  store = new ChangePointStore(db);
  ({ endpointId, profileId, configs } = await storeSweepPair(db));
  const base = { endpointId, profileId };
  // A search in streams, older than the rest: another scale, left out of the req/s series.
  await storeSweep(db, {
    ...base,
    configId: configs.fp16,
    startedAt: at(-1),
    capacity: 8,
    dimension: 'concurrency',
  });
  for (let i = 0; i < SEARCHES; i++) {
    const fp8 = i >= STEP;
    searches.push(
      await storeSweep(db, {
        ...base,
        configId: fp8 ? configs.fp8 : configs.fp16,
        startedAt: at(i),
        capacity: (fp8 ? 42 : 30) * wobble(i),
        cost: (fp8 ? 0.14 : 0.2) / wobble(i),
      }),
    );
  }
  // Neither has a value in the series: the SLO failed at the lowest load, and a list of points.
  await storeSweep(db, {
    ...base,
    configId: configs.fp8,
    startedAt: at(SEARCHES),
    capacity: null,
    stopReason: 'below_lowest',
  });
  await storeSweep(db, {
    ...base,
    configId: configs.fp8,
    startedAt: at(SEARCHES + 1),
    capacity: 500,
    kind: 'points',
    stopReason: 'completed',
  });
}, 60_000);

afterAll(() => db?.close());

const robustSteps = (points: readonly ChangePoint[], metric: string) =>
  points.filter((c) => c.metric === metric && c.mode === 'robust' && c.kind === 'step');

describe('change points of capacity searches', () => {
  let first: Awaited<ReturnType<typeof recomputeChangePoints>>;
  beforeAll(async () => {
    first = await recomputeChangePoints(store, { endpointId, profileId }, {}, 'sweeps');
  }, 30_000);

  it('finds the step in capacity and in cost at the first search after it, naming sweeps', () => {
    expect(first.runs).toBe(SEARCHES);
    const [capacity] = robustSteps(first.detected, 'capacity');
    expect(robustSteps(first.detected, 'capacity')).toHaveLength(1);
    expect(capacity).toMatchObject({
      statistic: 'mean',
      unit: 'req/s',
      sweepId: searches[STEP],
      previousSweepId: searches[STEP - 1],
      runId: null,
      previousRunId: null,
      runsBefore: STEP,
      runsAfter: SEARCHES - STEP,
    });
    expect(capacity.magnitude).toBeCloseTo(0.4, 1);
    const [cost] = robustSteps(first.detected, 'cost_per_mtok');
    expect(cost).toMatchObject({ unit: 'USD/Mtok', sweepId: searches[STEP] });
    expect(cost.magnitude).toBeCloseTo(-0.3, 1);
    // Both are one change: one group, for one alert.
    const robust = first.detectedTogether.filter((group) => group[0].mode === 'robust');
    expect(robust).toHaveLength(1);
    expect(robust[0].map((c) => c.metric).sort()).toEqual(['capacity', 'cost_per_mtok']);
  });

  it('keeps them apart from the run series: a run recomputation neither sees nor retracts them', async () => {
    await storeMeasuredRun(
      db,
      { endpointId, profileId, configId: configs.fp8, startedAt: at(SEARCHES) },
      syntheticRunResult({ requests: 5, tokensPerRequest: 8, seed: 1 }),
    );
    const runs = await recomputeChangePoints(store, { endpointId, profileId });
    expect(runs.retracted).toEqual([]);
    const listed = await listChangePoints(store, { profileIds: [profileId], metric: 'capacity' });
    expect(listed.changePoints.map((c) => c.id)).toEqual(
      expect.arrayContaining(robustSteps(first.detected, 'capacity').map((c) => c.id)),
    );
  });

  it('refines the same change points when recomputed again: nothing new to announce', async () => {
    const again = await recomputeChangePoints(store, { endpointId, profileId }, {}, 'sweeps');
    expect(again.detected).toEqual([]);
    expect(again.retracted).toEqual([]);
    const [capacity] = robustSteps(first.detected, 'capacity');
    const listed = await listChangePoints(store, {
      profileIds: [profileId],
      metric: 'capacity',
      mode: 'robust',
    });
    expect(listed.changePoints).toEqual([
      expect.objectContaining({ id: capacity.id, sweepId: searches[STEP] }),
    ]);
  });

  it('attributes the change to the configuration of the searches either side of it', async () => {
    const [capacity] = robustSteps(first.detected, 'capacity');
    const client = await db.pool.connect();
    try {
      const attribution = await changePointAttribution(client, capacity);
      expect(attribution).toMatchObject({
        configBefore: 1,
        configAfter: 2,
        configChanges: [{ field: 'weightQuant', before: 'fp16', after: 'fp8' }],
        explained: true,
      });
    } finally {
      client.release();
    }
    // As GET /change-points lists it: the summary names the configuration change, not "unexplained".
    const [listed] = await withAttribution(db, [capacity]);
    expect(listed.attribution.summary).toBe('coincides with config v2 (from v1: weightQuant fp16 -> fp8)');
  });

  it('offers only the value itself as the statistic of a sweep metric', async () => {
    await expect(listChangePoints(store, { metric: 'capacity', statistic: 'p99' })).rejects.toThrow(
      AnalysisInputError,
    );
    await expect(listChangePoints(store, { metric: 'capacity', statistic: 'mean' })).resolves.toBeDefined();
  });
});
