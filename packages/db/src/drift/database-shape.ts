import { connect } from '../connection';
import {
  emptyShape,
  formatColumn,
  formatForeignKey,
  formatIndex,
  SHAPE_KINDS,
  type SchemaShape,
} from './shape';

const PUBLIC_TABLES = `c.relnamespace = 'public'::regnamespace AND c.relname <> '_prisma_migrations'`;

const ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/** The shape of the `public` schema of a live database, read from pg_catalog. */
export async function databaseShape(databaseUrl: string): Promise<SchemaShape> {
  const client = await connect(databaseUrl);
  try {
    const shape = emptyShape();
    const tables = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c WHERE c.relkind IN ('r', 'p', 'v', 'm') AND ${PUBLIC_TABLES}`,
    );
    shape.tables = tables.rows.map((r) => r.name);

    const enums = await client.query<{ name: string; labels: string[] }>(
      `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace GROUP BY t.typname`,
    );
    shape.enums = enums.rows.map((r) => `${r.name}: ${r.labels.join(', ')}`);

    const columns = await client.query<{
      table: string;
      column: string;
      type: string;
      not_null: boolean;
      dflt: string | null;
    }>(
      `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
              a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS dflt
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND ${PUBLIC_TABLES}`,
    );
    shape.columns = columns.rows.map((r) => formatColumn(r.table, r.column, r.type, r.not_null, r.dflt));

    const indexes = await client.query<{
      table: string;
      name: string;
      unique: boolean;
      primary: boolean;
      method: string;
      columns: Array<string | null>;
      partial: boolean;
      definition: string;
    }>(
      `SELECT c.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
              am.amname AS method, x.indpred IS NOT NULL AS partial, pg_get_indexdef(x.indexrelid) AS definition,
              array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                      LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
         JOIN pg_am am ON am.oid = i.relam
        WHERE ${PUBLIC_TABLES}`,
    );
    shape.indexes = indexes.rows.map((r) =>
      // Partial and expression indexes are beyond Prisma: spell them out whole so only an allowance matches.
      r.partial || r.columns.includes(null)
        ? `${r.table} raw ${r.definition}`
        : formatIndex(
            r.table,
            r.primary ? 'primary' : r.unique ? 'unique' : 'index',
            r.name,
            r.method,
            r.columns as string[],
          ),
    );

    const foreignKeys = await client.query<{
      table: string;
      name: string;
      columns: string[];
      ref_table: string;
      ref_columns: string[];
      on_delete: string;
      on_update: string;
    }>(
      `SELECT c.relname AS table, k.conname AS name, r.relname AS ref_table,
              k.confdeltype AS on_delete, k.confupdtype AS on_update,
              array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.ord) AS columns,
              array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.ord) AS ref_columns
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
        WHERE k.contype = 'f' AND ${PUBLIC_TABLES}`,
    );
    shape.foreignKeys = foreignKeys.rows.map((r) =>
      formatForeignKey(
        r.table,
        r.name,
        r.columns,
        r.ref_table,
        r.ref_columns,
        ACTIONS[r.on_delete],
        ACTIONS[r.on_update],
      ),
    );

    const constraints = await client.query<{ table: string; name: string; definition: string }>(
      `SELECT c.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
        WHERE k.contype IN ('c', 'u', 'x') AND ${PUBLIC_TABLES}`,
    );
    shape.constraints = constraints.rows.map((r) => `${r.table}.${r.name} ${r.definition}`);

    const triggers = await client.query<{ table: string; name: string; definition: string }>(
      `SELECT c.relname AS table, t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND ${PUBLIC_TABLES}`,
    );
    shape.triggers = triggers.rows.map((r) => `${r.table}.${r.name} ${r.definition}`);

    for (const kind of SHAPE_KINDS) shape[kind].sort();
    return shape;
  } finally {
    await client.end();
  }
}
