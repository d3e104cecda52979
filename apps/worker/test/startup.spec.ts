import { DatabaseNotMigratedError } from '@teapot/db';
import { createTestDatabase, type TestDatabase } from '@teapot/db/testing';
import { createWorld, type WorkerWorld } from './support/harness';
import { createWorkerApp } from '../src';

let world: WorkerWorld;
let empty: TestDatabase;
beforeAll(async () => {
  world = await createWorld();
  empty = await createTestDatabase(undefined, { migrated: false });
});
afterAll(async () => {
  await empty?.drop();
  await world?.close();
});

describe('starting on a database nobody migrated', () => {
  it('refuses to start and says to run the migrations', async () => {
    const started = createWorkerApp({ env: world.workerEnv({ DATABASE_URL: empty.url }), logs: false });
    const refusal = await started.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DatabaseNotMigratedError);
    expect((refusal as Error).message).toMatch(/not migrated: it has no teapot tables/);
    expect((refusal as Error).message).toContain('npm run db:migrate');
  });
});
