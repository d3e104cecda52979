import { databaseShape } from './database-shape';
import { loadDmmf, SCHEMA_DIR } from './dmmf';
import { diffShapes, expectedShape, type SchemaShape } from './shape';

export type { SchemaShape } from './shape';

/**
 * Objects the migrations create in raw SQL because Prisma cannot express them, spelled exactly as
 * the drift check reads them from the database. Anything else the schema does not declare is drift.
 */
export const RAW_SQL_OBJECTS: Partial<SchemaShape> = {
  indexes: [
    // 20261202120000_retention_index: partial index for dropRawTimings().
    'run_requests raw CREATE INDEX run_requests_raw_kept_idx ON public.run_requests USING btree (run_id) WHERE (raw_dropped_at IS NULL)',
  ],
  constraints: [
    // 20261205181000_sweep_change_points: a change point starts at a run or at a sweep, never both.
    'change_points.change_points_one_start CHECK (((run_id IS NULL) <> (sweep_id IS NULL)))',
  ],
};

export interface SchemaDriftOptions {
  /** A schema folder to compare instead of the repository's `prisma/schema`. */
  schemaDir?: string;
  allowedExtras?: Partial<SchemaShape>;
}

/** Differences between the schema (as Prisma parses it) and a migrated database; empty when they agree. */
export async function schemaDrift(databaseUrl: string, options: SchemaDriftOptions = {}): Promise<string[]> {
  const expected = expectedShape(loadDmmf(options.schemaDir ?? SCHEMA_DIR));
  const actual = await databaseShape(databaseUrl);
  return diffShapes(expected, actual, options.allowedExtras ?? RAW_SQL_OBJECTS);
}
