import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The parts of Prisma's DMMF datamodel that decide the database schema. */
export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  isUpdatedAt: boolean;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  name?: string;
  dbName?: string;
  algorithm?: string;
  fields: Array<{ name: string }>;
}

export interface DmmfDatamodel {
  enums: Array<{
    name: string;
    dbName: string | null;
    values: Array<{ name: string; dbName: string | null }>;
  }>;
  models: DmmfModel[];
  indexes: DmmfIndex[];
}

/** The schema folder: `schema.prisma` (generator, datasource) and one `.prisma` file per domain. */
export const SCHEMA_DIR = path.resolve(__dirname, '../../../../prisma/schema');
const GENERATOR = path.resolve(__dirname, '../../scripts/dmmf-generator.js');

/**
 * Prisma's own parse of a schema folder: runs `prisma generate` (offline, no engine) on a copy
 * whose only generator writes the DMMF as JSON.
 */
export function loadDmmf(schemaDir = SCHEMA_DIR): DmmfDatamodel {
  const dir = mkdtempSync(path.join(tmpdir(), 'teapot-dmmf-'));
  try {
    const output = path.join(dir, 'dmmf.json');
    const copy = path.join(dir, 'schema');
    mkdirSync(copy);
    for (const file of readdirSync(schemaDir).filter((name) => name.endsWith('.prisma'))) {
      const schema = readFileSync(path.join(schemaDir, file), 'utf8');
      writeFileSync(path.join(copy, file), schema.replace(/^generator\s+\w+\s*\{[\s\S]*?^\}/gm, ''));
    }
    const generator = `generator dmmf {\n  provider = ${JSON.stringify(`node ${GENERATOR}`)}\n  output = ${JSON.stringify(output)}\n}\n`;
    writeFileSync(path.join(copy, 'teapot-dmmf-generator.prisma'), generator);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    };
    env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
    const cli = require.resolve('prisma/build/index.js');
    const res = spawnSync(process.execPath, [cli, 'generate', '--schema', copy], {
      env,
      encoding: 'utf8',
      cwd: dir,
    });
    if (res.status !== 0) throw new Error(`prisma generate (DMMF) failed:\n${res.stdout}\n${res.stderr}`);
    return JSON.parse(readFileSync(output, 'utf8')) as DmmfDatamodel;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
