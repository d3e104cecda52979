import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect, quoteIdent } from '../connection';
import { migrate, readMigrations } from '../migrate';

/** Prefix of the migrated templates test databases are copied from (safe to drop when no test runs). */
export const TEMPLATE_PREFIX = 'teapot_template_';

/** Keys this module's advisory locks take on the server's maintenance database. */
const TEMPLATE_LOCK = 72707370;

/**
 * The name of the migrated template database for this checkout's migrations on the server whose
 * maintenance database `adminUrl` names, created by the first caller on that server.
 *
 * Migrating a test database (every migration, then the data steps) takes about a second; copying a
 * migrated one with `CREATE DATABASE ... TEMPLATE` about a fifth of that, and the suite makes one
 * database per test file. The name is a hash of the migration files and of the code that applies
 * them, so checkouts with other migrations (or a changed runner) get templates of their own. The
 * template refuses connections: Postgres copies a database only while nobody is connected to it.
 */
export async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${migrationsKey().slice(0, 24)}`;
  const admin = await connect(adminUrl);
  try {
    if (await exists(admin, name)) return name;
    // One builder per server: the others wait here, then find it built.
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      if (await exists(admin, name)) return name;
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      const buildingUrl = new URL(adminUrl);
      buildingUrl.pathname = `/${building}`;
      await admin.query(`CREATE DATABASE ${quoteIdent(building)}`);
      try {
        await migrate(buildingUrl.toString());
        // Renamed only once complete, so a template under its final name is always fully migrated.
        await admin.query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(name)}`);
      } catch (err) {
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(building)} WITH (FORCE)`);
        throw err;
      }
      await admin.query(`ALTER DATABASE ${quoteIdent(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      return name;
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  } finally {
    await admin.end();
  }
}

async function exists(admin: Awaited<ReturnType<typeof connect>>, name: string): Promise<boolean> {
  const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return (found.rowCount ?? 0) > 0;
}

let key: string | undefined;

/** sha256 of every migration (name and checksum) and of the runner's own files (migrate, data steps). */
function migrationsKey(): string {
  if (key) return key;
  const hash = createHash('sha256');
  for (const migration of readMigrations()) hash.update(`${migration.name} ${migration.checksum}\n`);
  const sourceDir = path.join(__dirname, '..');
  const runner = ['migrate.ts', 'migrate.js'].map((file) => path.join(sourceDir, file));
  const steps = path.join(sourceDir, 'data-steps');
  const stepFiles = existsSync(steps)
    ? readdirSync(steps)
        .filter((file) => /\.(ts|js)$/.test(file) && !file.includes('.spec.'))
        .sort()
        .map((file) => path.join(steps, file))
    : [];
  for (const file of [...runner, ...stepFiles]) if (existsSync(file)) hash.update(readFileSync(file));
  key = hash.digest('hex');
  return key;
}
