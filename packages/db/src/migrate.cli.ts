import { ensureDatabase, redact } from './connection';
import { migrate } from './migrate';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    throw new Error(
      'DATABASE_URL is not set, e.g. DATABASE_URL=postgresql://postgres@127.0.0.1:5432/teapot pnpm db:migrate',
    );
  }
  if (await ensureDatabase(databaseUrl)) console.log(`created database ${redact(databaseUrl)}`);
  const result = await migrate(databaseUrl, { log: (line) => console.log(line) });
  console.log(
    result.applied.length > 0
      ? `${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already applied`
      : `database is up to date (${result.alreadyApplied.length} migration(s) applied)`,
  );
}

main().catch((err: unknown) => {
  console.error(`db:migrate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
