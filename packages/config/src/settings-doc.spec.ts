import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { apiEnvSchema } from './env';
import { workerEnvSchema } from './worker';

const SETTINGS_DOC = path.resolve(__dirname, '../../../docs/settings.md');

interface Row {
  variable: string;
  api: boolean;
  worker: boolean;
  default: string;
}

/** The rows of the table under "## API and worker" in docs/settings.md. */
function documentedRows(): Row[] {
  const section = readFileSync(SETTINGS_DOC, 'utf8')
    .split(/^## /m)
    .find((part) => part.startsWith('API and worker'));
  if (!section) throw new Error(`${SETTINGS_DOC} has no "## API and worker" section`);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variable, api, worker, fallback] = line
        .split('|')
        .slice(1, 5)
        .map((cell) => cell.trim());
      return {
        variable: variable.replace(/`/g, ''),
        api: api === 'yes',
        worker: worker === 'yes',
        default: fallback,
      };
    });
}

const schemas: Record<'api' | 'worker', z.ZodObject> = { api: apiEnvSchema, worker: workerEnvSchema };

describe('docs/settings.md', () => {
  const rows = documentedRows();
  const byName = new Map(rows.map((row) => [row.variable, row]));

  it('has one row per variable', () => {
    expect(rows.length).toBe(byName.size);
  });

  it.each(['api', 'worker'] as const)('names exactly the variables the %s reads', (process) => {
    const documented = rows.filter((row) => row[process]).map((row) => row.variable);
    expect(documented.sort()).toEqual(Object.keys(schemas[process].shape).sort());
  });

  it('gives each variable the default its schema applies', () => {
    for (const row of rows) {
      for (const process of ['api', 'worker'] as const) {
        if (!row[process]) continue;
        const field = schemas[process].shape[row.variable] as z.ZodType;
        const unset = field.safeParse(undefined);
        const where = `${row.variable} (${process}): documented default "${row.default}"`;
        if (row.default === 'required') {
          expect([where, unset.success]).toEqual([where, false]);
        } else if (row.default === 'unset') {
          expect([where, unset.success && unset.data]).toEqual([where, undefined]);
        } else if (row.default.startsWith('`')) {
          // The documented text, read as the variable's value, means what leaving it unset means.
          const written = field.safeParse(row.default.replace(/`/g, ''));
          expect([where, written.success && written.data]).toEqual([where, unset.success && unset.data]);
        } else {
          // Prose: a default computed per process (WORKER_ID).
          expect([where, unset.success]).toEqual([where, true]);
        }
      }
    }
  });
});
