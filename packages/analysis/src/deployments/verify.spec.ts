import { analysisStores, persistRunResult, type Database } from '@teapot/db';
import { openTestDatabase, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import {
  JUDGED_ROWS,
  overallOf,
  profileVerdictOf,
  VERIFICATION_CONFIDENCE,
  verifyDeployment,
  type DeploymentToVerify,
} from './verify';

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
    const done = await verifyDeployment(analysisStores(db), target, { iterations: 500 });
    if (done.state !== 'done') throw new Error('still measuring');
    const [slowerResult, sameResult] = done.verification.profiles;
    expect(slowerResult).toMatchObject({ profileId: slower, profileName: 'slower', verdict: 'regressed' });
    expect(slowerResult.baselineRunIds).toEqual(baseline.slower);
    const itl = slowerResult.metrics.find((m) => m.metric === 'itl' && m.statistic === 'p50');
    expect(itl).toMatchObject({ verdict: 'regressed', relative: true, threshold: 0.1, judged: true });
    expect(itl?.delta).toBeGreaterThan(0.8);
    expect(itl?.interval?.[0]).toBeGreaterThan(0.5);
    // Every gap doubled: the per-token rows and throughput decided it; the error rate (none) did not.
    expect(slowerResult.decidedBy).toEqual(
      expect.arrayContaining(['tpot.p50', 'tpot.mean', 'itl.p50', 'itl.p99', 'output_tokens_per_s.mean']),
    );
    expect(slowerResult.decidedBy).not.toContain('error_rate.mean');
    // Rows outside the judged set are shown with their own verdict, and never decide.
    const itlP90 = slowerResult.metrics.find((m) => m.metric === 'itl' && m.statistic === 'p90');
    expect(itlP90).toMatchObject({ verdict: 'regressed', judged: false });
    expect(slowerResult.decidedBy).not.toContain('itl.p90');
    expect(slowerResult.metrics.filter((m) => m.judged).map((m) => `${m.metric}.${m.statistic}`)).toEqual(
      expect.arrayContaining([...JUDGED_ROWS]),
    );

    expect(sameResult).toMatchObject({ verdict: 'verified' });
    expect(sameResult.baselineRunIds).toEqual(baseline.same);
    expect(sameResult.candidateRunIds).toHaveLength(3);
    expect(sameResult.decidedBy).toEqual(
      sameResult.metrics
        .filter((m) => m.judged && m.verdict === 'unchanged')
        .map((m) => `${m.metric}.${m.statistic}`),
    );
    // Unchanged is shown on the narrower equivalence interval, a change on the corrected one.
    const tpot = sameResult.metrics.find((m) => m.metric === 'tpot' && m.statistic === 'p50')!;
    expect(tpot.verdict).toBe('unchanged');
    expect(tpot.equivalenceInterval![1] - tpot.equivalenceInterval![0]).toBeLessThan(
      tpot.interval![1] - tpot.interval![0],
    );
    expect(sameResult.decidedBy.length).toBeGreaterThanOrEqual(5);
    expect(done.verification).toMatchObject({
      verdict: 'regressed',
      threshold: 0.1,
      confidence: VERIFICATION_CONFIDENCE,
      equivalenceConfidence: 0.9,
      method: {
        judgedRows: [...JUDGED_ROWS],
        changeOnlyRows: ['itl.p99'],
        familyAlpha: 0.05,
        correction: 'bonferroni',
        minimumEffect: 0.1,
      },
    });
    // Bonferroni over the judged rows: each interval at 1 - 0.05 / 7.
    expect(VERIFICATION_CONFIDENCE).toBeCloseTo(1 - 0.05 / JUDGED_ROWS.length, 12);
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
    expect(await verifyDeployment(analysisStores(db), target)).toEqual({
      state: 'measuring',
      unfinishedRuns: 1,
    });
    await persistRunResult(
      db,
      queued.id,
      syntheticRunResult({ requests: 24, tokensPerRequest: 48, seed: 5 }),
    );
    const done = await verifyDeployment(analysisStores(db), target);
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
    const failed = await verifyDeployment(analysisStores(db), down);
    expect(failed).toMatchObject({ state: 'done', verification: { verdict: 'regressed' } });
    if (failed.state === 'done') expect(failed.verification.profiles[0].reason).toMatch(/1 failed/);
  });

  it('profileVerdictOf: any change decides; verified needs every judged row unchanged but the P99 ITL', () => {
    const row = (name: string, verdict: 'regressed' | 'improved' | 'unchanged' | 'inconclusive') => {
      const [metric, statistic] = name.split(/\.(?=[^.]+$)/);
      return { metric, statistic, verdict };
    };
    const calm = JUDGED_ROWS.map((name) => row(name, 'unchanged'));
    expect(profileVerdictOf(calm)).toBe('unchanged');
    expect(profileVerdictOf([...calm.slice(1), row('tpot.p50', 'regressed')])).toBe('regressed');
    expect(profileVerdictOf([...calm.slice(1), row('tpot.p50', 'improved')])).toBe('improved');
    expect(profileVerdictOf([row('itl.p99', 'regressed'), row('tpot.p50', 'improved')])).toBe('regressed');
    // A tail that is neither shown changed nor unchanged does not hold verification up; others do.
    const others = calm.filter((r) => `${r.metric}.${r.statistic}` !== 'itl.p99');
    expect(profileVerdictOf([...others, row('itl.p99', 'inconclusive')])).toBe('unchanged');
    const noTtft = calm.filter((r) => r.metric !== 'ttft');
    expect(profileVerdictOf([...noTtft, row('ttft.p50', 'inconclusive')])).toBe('inconclusive');
    expect(profileVerdictOf([row('itl.p99', 'inconclusive')])).toBe('inconclusive');
    expect(profileVerdictOf([])).toBe('inconclusive');
  });

  it('overallOf: a regression wins, no_baseline counts only when nothing else was judged', () => {
    expect(overallOf(['verified', 'regressed', 'no_baseline'])).toBe('regressed');
    expect(overallOf(['verified', 'no_baseline'])).toBe('verified');
    expect(overallOf(['no_baseline', 'no_baseline'])).toBe('no_baseline');
    expect(overallOf(['improved', 'verified'])).toBe('improved');
    expect(overallOf(['improved', 'inconclusive'])).toBe('inconclusive');
  });
});
