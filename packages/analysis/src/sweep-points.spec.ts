import { HEADLINES } from '@teapot/contracts';
import { analysisStores, LatestResultsStore, type Database } from '@teapot/db';
import { openTestDatabase, storeEndpoint, storeMeasuredRun } from '@teapot/db/testing';
import { selectRuns } from './selection';
import { DAY, dailyItlP99, HOUR, stretchedRunResult, T0 } from './test-support/stretched-runs';
import { trend } from './trend';

/*
 * A sweep's points measure the loads its search chose, so a point at 8x the profile's load must not
 * move the profile's P99 ITL trend, its change-point series or its latest result. The points here are
 * 5x slower than the profile's own runs: any leak shows in the figures.
 */
let db: Database;
let endpointId: string;
let profileId: string;
let configId: string;
const ownRuns: string[] = [];
const pointRuns: string[] = [];

const run = (seed: number, scale: number) =>
  stretchedRunResult({ seed, scale, requests: 10, tokensPerRequest: 32 });

beforeAll(async () => {
  db = await openTestDatabase();
  endpointId = await storeEndpoint(db);
  configId = (await db.prisma.servingConfig.create({ data: { endpointId, version: 1, weightQuant: 'fp16' } }))
    .id;
  profileId = (await db.prisma.profile.create({ data: { name: 'p', endpointId, workload: {}, load: {} } }))
    .id;
  const sweep = await db.prisma.sweep.create({
    data: { endpointId, profileId, configId, trigger: 'schedule', spec: {}, profileSnapshot: {} },
  });
  for (let day = 0; day < 3; day++) {
    const at = T0 + day * DAY + 2 * HOUR;
    const seed = day + 1;
    ownRuns.push(
      await storeMeasuredRun(db, { endpointId, configId, profileId, startedAt: new Date(at) }, run(seed, 1)),
    );
    pointRuns.push(
      await storeMeasuredRun(
        db,
        {
          endpointId,
          configId,
          profileId,
          startedAt: new Date(at + 60_000),
          sweep: { id: sweep.id, index: day },
        },
        run(seed + 100, 5),
      ),
    );
  }
}, 60_000);

afterAll(() => db?.close());

describe("a sweep's points stay out of its profile's series", () => {
  it.each(['auto', 'runs'] as const)('trends (%s source) count only the profile own runs', async (source) => {
    const stores = analysisStores(db);
    const withPoints = await trend(stores, dailyItlP99(3), { source });
    const own = await trend(stores, { ...dailyItlP99(3), runIds: ownRuns });
    expect(withPoints.series[0].points.map((p) => p.runs)).toEqual([1, 1, 1]);
    expect(withPoints.series[0].points.map((p) => p.value)).toEqual(own.series[0].points.map((p) => p.value));
  });

  it('selections leave them out, unless a caller names the runs', async () => {
    const stores = analysisStores(db);
    const range = { from: new Date(T0), to: new Date(T0 + 3 * DAY) };
    expect(
      (await selectRuns(stores.runs, { ...range, profileIds: [profileId] })).runs.map((r) => r.id),
    ).toEqual(ownRuns);
    const named = await selectRuns(stores.runs, { ...range, runIds: pointRuns });
    expect(named.runs.map((r) => r.id)).toEqual(pointRuns);
  });

  it('the change-point series and the latest result are the profile own runs', async () => {
    const stores = analysisStores(db);
    const series = await stores.changePoints.seriesRuns({ endpointId, profileId }, 100);
    expect(series.map((r) => r.id)).toEqual(ownRuns);
    const [latest] = await new LatestResultsStore(db).latest(HEADLINES, 10);
    const last = await db.prisma.run.findUniqueOrThrow({ where: { id: ownRuns[2] } });
    expect(latest.startedAt).toEqual(last.startedAt);
  });
});
