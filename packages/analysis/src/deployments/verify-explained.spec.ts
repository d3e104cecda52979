import { analysisStores, type Database } from '@teapot/db';
import { openTestDatabase, storeEndpoint, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { compareRuns } from '../comparisons/load-comparison';
import { verifyDeployment } from './verify';

const workload = { kind: 'synthetic', inputTokens: 64, outputTokens: 32 };
const snapshot = { workload, load: { kind: 'closed', concurrency: 4 }, requestCount: 16 };
let db: Database;
let endpointId: string;
let profileId: string;

/** A stored run whose scraped server diagnostics are `server`; `gapScale` 2 doubles its gaps. */
async function run(seed: number, gapScale: number, server: object, deploymentId?: string): Promise<string> {
  const result = syntheticRunResult({ requests: 16, tokensPerRequest: 32, seed, gapScale });
  const seedRow = { endpointId, profileId, deploymentId, profileSnapshot: snapshot, startedAt: new Date() };
  const id = await storeMeasuredRun(db, seedRow, result);
  await db.pool.query('UPDATE runs SET server_diagnostics = $2 WHERE id = $1', [
    id,
    { scrapes: 20, failedScrapes: 0, ...server },
  ]);
  return id;
}

beforeAll(async () => {
  db = await openTestDatabase({ max: 2 });
  endpointId = await storeEndpoint(db, 'explained');
  const row = await db.prisma.profile.create({
    data: { name: 'chat', endpointId, workload: snapshot.workload, load: snapshot.load, requestCount: 16 },
  });
  profileId = row.id;
});

afterAll(() => db?.close());

describe('verdicts explained by the diagnostics that changed', () => {
  it('a deployment that overcommits the KV cache: preemptions and KV usage explain the regression', async () => {
    const baseline: string[] = [];
    for (let i = 0; i < 5; i++)
      baseline.push(await run(i + 1, 1, { preemptions: 0, kvCacheUsageMax: 0.6 + 0.01 * i, waitingMax: 0 }));
    const deployment = await db.prisma.deployment.create({
      data: {
        ...{ endpointId, label: 'small-kv', effectiveAt: new Date(), profileIds: [profileId] },
        ...{ runsPerProfile: 3, firstRunDelayS: 0, baselineRuns: 5, threshold: 0.1 },
      },
    });
    const candidate: string[] = [];
    for (const [i, preemptions] of [35, 37, 39].entries())
      candidate.push(
        await run(i + 11, 2, { preemptions, kvCacheUsageMax: 0.98 + 0.01 * i, waitingMax: 0 }, deployment.id),
      );

    const done = await verifyDeployment(
      analysisStores(db),
      { ...deployment, profileIds: [profileId] },
      { iterations: 300 },
    );
    if (done.state !== 'done') throw new Error('still measuring');
    const [profile] = done.verification.profiles;
    expect(profile.verdict).toBe('regressed');
    // Every gap doubled too, during prefills and outside them alike: no prefill interference.
    expect(profile.explanations?.map((change) => change.text)).toEqual([
      'preemptions 0 -> 37 per run',
      'KV-cache usage (max) 62% -> 99%',
      'ITL P99 during prefills 6.94 -> 13.9 ms (x2.0)',
      'ITL P99 outside prefills 6.95 -> 13.9 ms (x2.0)',
    ]);

    const comparison = await compareRuns(analysisStores(db), {
      baseline: { runIds: baseline },
      candidate: { runIds: candidate },
      iterations: 300,
    });
    expect(comparison.explanations.map((change) => change.metric)).toEqual([
      'preemptions',
      'kv_cache_usage_max',
      'itl_p99_during_prefill_ms',
      'itl_p99_outside_prefill_ms',
    ]);
    // The same runs on both sides: nothing changed, nothing to explain.
    const same = await compareRuns(analysisStores(db), {
      baseline: { runIds: baseline.slice(0, 3) },
      candidate: { runIds: baseline.slice(2) },
      iterations: 300,
    });
    expect(same.explanations).toEqual([]);
  });
});
