import { loadApiEnv } from '@teapot/config';
import { DatabaseNotMigratedError } from '@teapot/db';
import { createTestWorld, type TestWorld } from '@teapot/testing';
import { createApp } from '../src/app';

let world: TestWorld;
beforeAll(async () => {
  world = await createTestWorld({ poolMax: 1 });
});
afterAll(() => world?.close());

describe('starting on a database nobody migrated', () => {
  it('refuses to start and says to run the migrations, before any query fails', async () => {
    const env = loadApiEnv(
      world.env({
        DATABASE_URL: await world.unmigratedDatabase(),
        TEAPOT_API_KEY: 'tpk_startup_0123456789abcdefghij',
        PORT: '0',
      }),
    );
    const app = await createApp(env, { logDestination: { write: () => true } });
    const refusal = await app.init().catch((error: unknown) => error);
    await app.close().catch(() => undefined);
    expect(refusal).toBeInstanceOf(DatabaseNotMigratedError);
    expect((refusal as Error).message).toContain('npm run db:migrate');
  });
});
