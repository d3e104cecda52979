import { clientDiagnostics } from '@teapot/measure';
import { createDatabase, type Database } from './client';
import {
  createTestDatabase,
  storeEndpoint,
  storeMeasuredRun,
  syntheticRunResult,
  type TestDatabase,
} from './testing';

describe('client diagnostics written with the run', () => {
  let testDb: TestDatabase;
  let db: Database;
  let endpoints = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase(testDb.url);
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  async function stored(profileSnapshot: object) {
    const result = syntheticRunResult({ requests: 12, tokensPerRequest: 20 });
    const endpointId = await storeEndpoint(db, `e${++endpoints}`);
    const id = await storeMeasuredRun(db, { endpointId, startedAt: new Date(), profileSnapshot }, result);
    const row = await db.prisma.run.findUniqueOrThrow({ where: { id } });
    return { result, stored: row.clientDiagnostics };
  }

  it("sets the deadlines at the snapshot's TPOT SLO", async () => {
    const { result, stored: diagnostics } = await stored({ slo: { tpotMs: 4.5 } });
    expect(diagnostics).toEqual(clientDiagnostics(result.requests, result.summary, { tpotSloMs: 4.5 }));
    expect(diagnostics).toMatchObject({ deadlineTpotSource: 'slo', deadlineTpotMs: 4.5 });
  });

  it("falls back to the run's median TPOT without an SLO, or with one that is no number", async () => {
    for (const snapshot of [{}, { slo: { tpotMs: 'fast' } }, { slo: 'none' }]) {
      const { result, stored: diagnostics } = await stored(snapshot);
      expect(diagnostics).toMatchObject({
        deadlineTpotSource: 'median',
        deadlineTpotMs: result.summary.tpotMs!.p50,
      });
    }
  });
});
