import type { DmmfDatamodel, DmmfField, DmmfModel } from './dmmf';

/**
 * A database schema as sorted one-line descriptions per kind of object, in PostgreSQL's own
 * canonical spelling (format_type, pg_get_expr), so two shapes compare with a plain diff.
 */
export interface SchemaShape {
  tables: string[];
  enums: string[];
  columns: string[];
  indexes: string[];
  foreignKeys: string[];
  /** CHECK, UNIQUE and EXCLUDE constraints: Prisma creates none, so each must come from raw SQL. */
  constraints: string[];
  triggers: string[];
}

export type ShapeKind = keyof SchemaShape;

export function emptyShape(): SchemaShape {
  return { tables: [], enums: [], columns: [], indexes: [], foreignKeys: [], constraints: [], triggers: [] };
}
export const SHAPE_KINDS: ShapeKind[] = [
  'tables',
  'enums',
  'columns',
  'indexes',
  'foreignKeys',
  'constraints',
  'triggers',
];

const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Uuid: () => 'uuid',
  Text: () => 'text',
  VarChar: (a) => (a.length ? `character varying(${a[0]})` : 'character varying'),
  Char: (a) => `character(${a[0] ?? 1})`,
  Timestamptz: (a) => `timestamp(${a[0] ?? 3}) with time zone`,
  Timestamp: (a) => `timestamp(${a[0] ?? 3}) without time zone`,
  Date: () => 'date',
  Integer: () => 'integer',
  SmallInt: () => 'smallint',
  BigInt: () => 'bigint',
  DoublePrecision: () => 'double precision',
  Real: () => 'real',
  Decimal: (a) => `numeric(${a.join(',') || '65,30'})`,
  JsonB: () => 'jsonb',
  Json: () => 'json',
  ByteA: () => 'bytea',
  Boolean: () => 'boolean',
  Inet: () => 'inet',
};

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** quote_ident: PostgreSQL prints names that are not plain lower-case identifiers in quotes. */
function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function tableName(model: DmmfModel): string {
  return model.dbName ?? model.name;
}

function columnName(field: DmmfField): string {
  return field.dbName ?? field.name;
}

function columnType(field: DmmfField, enumNames: Map<string, string>): string {
  let base: string;
  if (field.kind === 'enum') {
    base = quoteIdent(enumNames.get(field.type) ?? field.type);
  } else if (field.nativeType) {
    const native = NATIVE_TYPES[field.nativeType[0]];
    if (!native)
      throw new Error(`drift check does not know native type @db.${field.nativeType[0]} (${field.name})`);
    base = native(field.nativeType[1]);
  } else {
    base = SCALAR_TYPES[field.type];
    if (!base) throw new Error(`drift check does not know Prisma type ${field.type} (${field.name})`);
  }
  return field.isList ? `${base}[]` : base;
}

function sqlLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The default as pg_get_expr prints it, or null when Prisma sets it client-side (uuid(), cuid()...). */
function columnDefault(field: DmmfField, type: string): string | null {
  if (!field.hasDefaultValue) return null;
  const value = field.default;
  if (Array.isArray(value)) {
    if (value.length === 0) return `ARRAY[]::${type}`;
    throw new Error(`drift check does not know non-empty list defaults (${field.name})`);
  }
  if (value !== null && typeof value === 'object') {
    const fn = value as { name: string; args: unknown[] };
    if (fn.name === 'now') return 'CURRENT_TIMESTAMP';
    if (['uuid', 'cuid', 'nanoid', 'ulid'].includes(fn.name)) return null;
    if (fn.name === 'dbgenerated') return String(fn.args[0]);
    throw new Error(`drift check does not know default ${fn.name}() (${field.name})`);
  }
  if (typeof value === 'number') return value < 0 ? `'${value}'::${type}` : String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return `${sqlLiteral(value)}::${type}`;
  throw new Error(`drift check does not know default ${JSON.stringify(value)} (${field.name})`);
}

const REFERENTIAL_ACTIONS: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

export function formatColumn(
  table: string,
  column: string,
  type: string,
  notNull: boolean,
  dflt: string | null,
): string {
  return `${table}.${column} ${type}${notNull ? ' NOT NULL' : ''}${dflt === null ? '' : ` DEFAULT ${dflt}`}`;
}

export function formatIndex(
  table: string,
  kind: string,
  name: string,
  method: string,
  columns: string[],
): string {
  return `${table} ${kind} ${name} USING ${method} (${columns.join(', ')})`;
}

export function formatForeignKey(
  table: string,
  name: string,
  columns: string[],
  refTable: string,
  refColumns: string[],
  onDelete: string,
  onUpdate: string,
): string {
  return `${table}.${name} (${columns.join(', ')}) -> ${refTable}(${refColumns.join(', ')}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`;
}

/** What `prisma migrate` would create for this datamodel on PostgreSQL, following its naming conventions. */
export function expectedShape(dmmf: DmmfDatamodel): SchemaShape {
  const enumNames = new Map(dmmf.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const models = new Map(dmmf.models.map((m) => [m.name, m]));
  const shape = emptyShape();

  for (const e of dmmf.enums) {
    shape.enums.push(`${enumNames.get(e.name)}: ${e.values.map((v) => v.dbName ?? v.name).join(', ')}`);
  }
  for (const model of dmmf.models) {
    const table = tableName(model);
    shape.tables.push(table);
    const byName = new Map(model.fields.map((f) => [f.name, f]));
    for (const field of model.fields) {
      if (field.kind === 'object') {
        if (!field.relationFromFields?.length) continue;
        const target = models.get(field.type);
        if (!target)
          throw new Error(`relation ${model.name}.${field.name} points at unknown model ${field.type}`);
        const from = field.relationFromFields.map((n) => byName.get(n)!);
        const to = (field.relationToFields ?? []).map((n) =>
          columnName(target.fields.find((f) => f.name === n)!),
        );
        const fromColumns = from.map(columnName);
        const required = from.every((f) => f.isRequired);
        const onDelete = field.relationOnDelete ?? (required ? 'Restrict' : 'SetNull');
        const onUpdate = field.relationOnUpdate ?? 'Cascade';
        shape.foreignKeys.push(
          formatForeignKey(
            table,
            `${table}_${fromColumns.join('_')}_fkey`,
            fromColumns,
            tableName(target),
            to,
            REFERENTIAL_ACTIONS[onDelete],
            REFERENTIAL_ACTIONS[onUpdate],
          ),
        );
        continue;
      }
      if (field.kind === 'unsupported')
        throw new Error(`drift check does not know Unsupported types (${field.name})`);
      const type = columnType(field, enumNames);
      // Prisma leaves scalar-list columns nullable even when the field is required.
      const notNull = field.isRequired && !field.isList;
      shape.columns.push(formatColumn(table, columnName(field), type, notNull, columnDefault(field, type)));
    }
  }
  for (const index of dmmf.indexes) {
    if (index.type === 'fulltext') throw new Error('drift check does not know fulltext indexes');
    const model = models.get(index.model)!;
    const table = tableName(model);
    const columns = index.fields.map((f) => columnName(model.fields.find((mf) => mf.name === f.name)!));
    const suffix = { id: 'pkey', unique: 'key', normal: 'idx' }[index.type];
    const name =
      index.dbName ?? (index.type === 'id' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`);
    if (name.length > 63)
      throw new Error(`index name ${name} is longer than PostgreSQL's 63 characters: give it a map:`);
    const kind = { id: 'primary', unique: 'unique', normal: 'index' }[index.type];
    shape.indexes.push(formatIndex(table, kind, name, (index.algorithm ?? 'BTree').toLowerCase(), columns));
  }
  for (const kind of SHAPE_KINDS) shape[kind].sort();
  return shape;
}

/** Differences as readable lines: "- columns: x" is declared but missing, "+ columns: x" exists but is not declared. */
export function diffShapes(
  expected: SchemaShape,
  actual: SchemaShape,
  allowedExtras: Partial<SchemaShape> = {},
): string[] {
  const lines: string[] = [];
  for (const kind of SHAPE_KINDS) {
    const want = new Set(expected[kind]);
    const have = new Set(actual[kind]);
    const allowed = new Set(allowedExtras[kind] ?? []);
    for (const item of want) if (!have.has(item)) lines.push(`- ${kind}: ${item}`);
    for (const item of have) if (!want.has(item) && !allowed.has(item)) lines.push(`+ ${kind}: ${item}`);
    for (const item of allowed)
      if (!have.has(item)) lines.push(`- ${kind} (allowed raw SQL, now missing): ${item}`);
  }
  return lines;
}
