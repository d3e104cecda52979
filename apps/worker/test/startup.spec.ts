import { DatabaseNotMigratedError } from '@teapot/db';
import { createWorld, type WorkerWorld } from './support/harness';
import { createWorkerApp } from '../src';

let world: WorkerWorld;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world?.close());

describe('starting on a database nobody migrated', () => {
  it('refuses to start and says to run the migrations', async () => {
    const started = createWorkerApp({
      env: world.workerEnv({ DATABASE_URL: await world.unmigratedDatabase() }),
      logs: false,
    });
    const refusal = await started.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DatabaseNotMigratedError);
    expect((refusal as Error).message).toMatch(/not migrated: it has no teapot tables/);
    expect((refusal as Error).message).toContain('npm run db:migrate');
  });
});
