import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Client } from 'pg';
import { connect, redact } from './connection';
import { rollUpRunsStoredBeforeRollups } from './data-steps/20261203150000_run_rollups';

/** `prisma/migrations` of the repository (the same relative place from src/ and dist/). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../prisma/migrations');

/** The key Prisma's own migrate takes, so this runner and `prisma migrate deploy` exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

/** Prisma's DDL for its bookkeeping table, verbatim. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  /** sha256 hex of the file, as Prisma computes it. */
  checksum: string;
}

export interface MigrateOptions {
  migrationsDir?: string;
  log?: (line: string) => void;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
  /** Endpoint-days of runs stored before rollups existed that were rolled up now. */
  rolledUpDays: number;
}

/**
 * Data steps that are code, not SQL: each runs after every migrate() once its migration is applied.
 * They are idempotent and cheap when there is nothing to do, so an interrupted step resumes on the
 * next migrate() (the migration itself is recorded as applied either way). Each is a frozen copy in
 * `data-steps/`, never today's code, so that what a migration does cannot change after it shipped.
 */
const DATA_STEPS: Array<{
  after: string;
  run(client: Client, log: (line: string) => void): Promise<number>;
}> = [
  {
    after: '20261203150000_run_rollups',
    run: rollUpRunsStoredBeforeRollups,
  },
];

export function readMigrations(migrationsDir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(path.join(migrationsDir, entry.name, 'migration.sql')),
    )
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(migrationsDir, name, 'migration.sql'));
      return {
        name,
        sql: bytes.toString('utf8'),
        checksum: createHash('sha256').update(bytes).digest('hex'),
      };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies pending migrations in name order, each in its own transaction together with its
 * `_prisma_migrations` row, under Prisma's advisory lock. Refuses to go on when an applied
 * migration's file changed or a failed migration is recorded.
 */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const files = readMigrations(options.migrationsDir);
  const log = options.log ?? (() => undefined);
  const client = await connect(databaseUrl);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    try {
      const result = await applyPending(client, files, log);
      const applied = new Set([...result.applied, ...result.alreadyApplied]);
      for (const step of DATA_STEPS) {
        if (applied.has(step.after)) result.rolledUpDays += await step.run(client, log);
      }
      return result;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(
  client: Client,
  files: MigrationFile[],
  log: (line: string) => void,
): Promise<MigrateResult> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );
  const failed = rows.filter((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed.length > 0) {
    throw new Error(
      `Migration ${failed.map((r) => r.migration_name).join(', ')} failed earlier and is recorded as unfinished in _prisma_migrations: ` +
        'repair the database, then mark it with `prisma migrate resolve` (or delete its row) before migrating again.',
    );
  }
  const applied = new Map(
    rows.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]),
  );
  const result: MigrateResult = { applied: [], alreadyApplied: [], rolledUpDays: 0 };
  for (const file of files) {
    const checksum = applied.get(file.name);
    if (checksum !== undefined) {
      if (checksum !== file.checksum) {
        throw new Error(
          `Migration ${file.name} was modified after it was applied (checksum in database ${checksum}, file ${file.checksum}): ` +
            'never edit an applied migration; restore the file and add a new migration instead.',
        );
      }
      result.alreadyApplied.push(file.name);
      continue;
    }
    await applyOne(client, file);
    log(`applied ${file.name}`);
    result.applied.push(file.name);
  }
  return result;
}

async function applyOne(client: Client, file: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    const id = randomUUID();
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, file.checksum, file.name],
    );
    await client.query(file.sql);
    await client.query(
      'UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1',
      [id],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`Migration ${file.name} failed and was rolled back: ${message}`, { cause: err });
  }
}

/** The database lacks migrations this checkout has: the processes refuse to start on it. */
export class DatabaseNotMigratedError extends Error {
  constructor(
    /** Migrations not applied; empty when the database has none at all. */
    readonly pending: string[],
    databaseUrl: string,
  ) {
    super(
      `The database ${redact(databaseUrl)} is not migrated: ` +
        (pending.length === 0
          ? 'it has no teapot tables.'
          : `${pending.length} migration(s) are not applied (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', ...' : ''}).`) +
        `\nRun the migrations, then start again:\n  DATABASE_URL=${redact(databaseUrl)} npm run db:migrate\n` +
        '(or `prisma migrate deploy`, on a machine where the Prisma CLI can run).',
    );
    this.name = 'DatabaseNotMigratedError';
  }
}

/**
 * Throws DatabaseNotMigratedError unless every migration in `migrationsDir` is recorded as applied.
 * Without the directory (a deployment that ships only dist/) it only checks that teapot's tables exist.
 */
export async function assertMigrated(
  queryable: { query<R extends object>(sql: string): Promise<{ rows: R[] }> },
  databaseUrl: string,
  migrationsDir = MIGRATIONS_DIR,
): Promise<void> {
  const [{ present }] = (
    await queryable.query<{ present: boolean }>(
      `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
    )
  ).rows;
  const expected = existsSync(migrationsDir) ? readMigrations(migrationsDir).map((file) => file.name) : [];
  if (!present) throw new DatabaseNotMigratedError([], databaseUrl);
  const applied = new Set(
    (
      await queryable.query<{ migration_name: string }>(
        'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      )
    ).rows.map((row) => row.migration_name),
  );
  if (applied.size === 0) throw new DatabaseNotMigratedError([], databaseUrl);
  const pending = expected.filter((name) => !applied.has(name));
  if (pending.length > 0) throw new DatabaseNotMigratedError(pending, databaseUrl);
}

/** assertMigrated over a connection of its own, closed before returning. */
export async function assertDatabaseMigrated(
  databaseUrl: string,
  migrationsDir = MIGRATIONS_DIR,
): Promise<void> {
  const client = await connect(databaseUrl);
  try {
    await assertMigrated(client, databaseUrl, migrationsDir);
  } finally {
    await client.end();
  }
}
