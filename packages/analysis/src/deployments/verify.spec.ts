import { persistRunResult, type Database } from '@teapot/db';
import { openTestDatabase, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { overallOf, verifyDeployment, type DeploymentToVerify } from './verify';

let db: Database;
let endpointId: string;
let configId: string;
const SNAPSHOT = {
  workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 48 },
  load: { kind: 'closed', concurrency: 4 },
  requestCount: 24,
};

beforeAll(async () => {
  db = await openTestDatabase({ max: 2 });
  endpointId = (
    await db.prisma.endpoint.create({
      data: { name: 'verify-spec', baseUrl: 'http://127.0.0.1:9/v1', apiKind: 'chat', model: 'm' },
    })
  ).id;
  configId = (await db.prisma.servingConfig.create({ data: { endpointId, version: 1, weightQuant: 'fp8' } }))
    .id;
});

afterAll(() => db?.close());

async function profile(name: string): Promise<string> {
  const row = await db.prisma.profile.create({
    data: { name, endpointId, workload: SNAPSHOT.workload, load: SNAPSHOT.load, requestCount: 24 },
  });
  return row.id;
}

/** A measured run of the profile, finished now; `gapScale` 2 doubles every inter-token gap. */
async function measuredRun(profileId: string, seed: number, gapScale: number, deploymentId?: string) {
  return storeMeasuredRun(
    db,
    {
      endpointId,
      configId,
      profileId,
      deploymentId,
      profileSnapshot: SNAPSHOT,
      trigger: deploymentId ? 'deployment' : 'schedule',
      startedAt: new Date(),
    },
    syntheticRunResult({ requests: 24, tokensPerRequest: 48, seed, gapScale }),
  );
}

async function deployment(profileIds: string[], threshold = 0.1): Promise<DeploymentToVerify> {
  const row = await db.prisma.deployment.create({
    data: {
      endpointId,
      label: 'spec',
      effectiveAt: new Date(),
      runsPerProfile: 3,
      profileIds,
      firstRunDelayS: 0,
      baselineRuns: 3,
      threshold,
    },
  });
  return row;
}

describe('verifyDeployment over stored runs', () => {
  it('regressed when every gap doubled, verified when nothing changed; the baseline is the last K before', async () => {
    const slower = await profile('slower');
    const same = await profile('same');
    // An older run that K = 3 leaves out of the baseline.
    await measuredRun(same, 99, 3);
    const baseline = { slower: [] as string[], same: [] as string[] };
    for (let i = 0; i < 3; i++) {
      baseline.slower.push(await measuredRun(slower, i + 1, 1));
      baseline.same.push(await measuredRun(same, i + 11, 1));
    }
    const target = await deployment([slower, same]);
    const candidates = [];
    for (let i = 0; i < 3; i++) {
      candidates.push(await measuredRun(slower, i + 21, 2, target.id));
      candidates.push(await measuredRun(same, i + 31, 1, target.id));
    }
    const done = await verifyDeployment(db, target, { iterations: 500 });
    if (done.state !== 'done') throw new Error('still measuring');
    const [slowerResult, sameResult] = done.verification.profiles;
    expect(slowerResult).toMatchObject({ profileId: slower, profileName: 'slower', verdict: 'regressed' });
    expect(slowerResult.baselineRunIds).toEqual(baseline.slower);
    const itl = slowerResult.metrics.find((m) => m.metric === 'itl' && m.statistic === 'p50');
    expect(itl).toMatchObject({ verdict: 'regressed', relative: true, threshold: 0.1 });
    expect(itl?.delta).toBeGreaterThan(0.8);
    expect(itl?.interval?.[0]).toBeGreaterThan(0.5);
    expect(sameResult).toMatchObject({ verdict: 'verified' });
    expect(sameResult.baselineRunIds).toEqual(baseline.same);
    expect(sameResult.candidateRunIds).toHaveLength(3);
    expect(done.verification).toMatchObject({ verdict: 'regressed', threshold: 0.1, confidence: 0.95 });
  });

  it('waits while a run is unfinished; says so when there is no baseline or nothing was measured', async () => {
    const fresh = await profile('fresh');
    const target = await deployment([fresh]);
    const queued = await db.prisma.run.create({
      data: {
        endpointId,
        profileId: fresh,
        deploymentId: target.id,
        profileSnapshot: SNAPSHOT,
        trigger: 'deployment',
      },
    });
    expect(await verifyDeployment(db, target)).toEqual({ state: 'measuring', unfinishedRuns: 1 });
    await persistRunResult(
      db,
      queued.id,
      syntheticRunResult({ requests: 24, tokensPerRequest: 48, seed: 5 }),
    );
    const done = await verifyDeployment(db, target);
    expect(done).toMatchObject({ state: 'done', verification: { verdict: 'no_baseline' } });
    if (done.state === 'done') expect(done.verification.profiles[0].reason).toMatch(/no successful run/);

    const broken = await profile('broken');
    await measuredRun(broken, 7, 1);
    const down = await deployment([broken]);
    await db.prisma.run.create({
      data: {
        endpointId,
        profileId: broken,
        deploymentId: down.id,
        profileSnapshot: SNAPSHOT,
        trigger: 'deployment',
        status: 'failed',
        finishedAt: new Date(),
      },
    });
    const failed = await verifyDeployment(db, down);
    expect(failed).toMatchObject({ state: 'done', verification: { verdict: 'regressed' } });
    if (failed.state === 'done') expect(failed.verification.profiles[0].reason).toMatch(/1 failed/);
  });

  it('overallOf: a regression wins, no_baseline counts only when nothing else was judged', () => {
    expect(overallOf(['verified', 'regressed', 'no_baseline'])).toBe('regressed');
    expect(overallOf(['verified', 'no_baseline'])).toBe('verified');
    expect(overallOf(['no_baseline', 'no_baseline'])).toBe('no_baseline');
    expect(overallOf(['improved', 'verified'])).toBe('improved');
    expect(overallOf(['improved', 'inconclusive'])).toBe('inconclusive');
  });
});
