import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

export const SCHEMA_PATH = path.resolve(__dirname, '../../../../prisma/schema.prisma');
const GENERATOR = path.resolve(__dirname, '../../scripts/dmmf-generator.js');

/**
 * Prisma's own parse of a schema: runs `prisma generate` (offline, no engine) on a copy whose only
 * generator writes the DMMF as JSON.
 */
export function loadDmmf(schemaPath = SCHEMA_PATH): DmmfDatamodel {
  const dir = mkdtempSync(path.join(tmpdir(), 'teapot-dmmf-'));
  try {
    const output = path.join(dir, 'dmmf.json');
    const generator = `generator dmmf {\n  provider = ${JSON.stringify(`node ${GENERATOR}`)}\n  output = ${JSON.stringify(output)}\n}`;
    const schema = readFileSync(schemaPath, 'utf8').replace(/^generator\s+\w+\s*\{[\s\S]*?^\}/gm, '');
    writeFileSync(path.join(dir, 'schema.prisma'), `${generator}\n${schema}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    };
    env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
    const cli = require.resolve('prisma/build/index.js');
    const res = spawnSync(process.execPath, [cli, 'generate', '--schema', path.join(dir, 'schema.prisma')], {
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
