import * as fs from 'node:fs';
import * as path from 'node:path';

// The layer order (ARCHITECTURE.md, "Layers"): the base packages depend on nothing of ours; the
// measuring client, the contracts and the statistics sit on the base, side by side.
const packages = path.resolve(__dirname, '../..');
const BASE = ['random', 'run-definitions', 'tokenizer'];
const BELOW_MEASURE = [...BASE, 'contracts', 'stats'];
const SIDE_BY_SIDE = ['measure', 'contracts', 'stats'];
const ours = (names: string[]) => names.filter((name) => name.startsWith('@teapot/'));

function dependencies(
  dir: string,
  fields = ['dependencies', 'devDependencies', 'peerDependencies'],
): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(packages, dir, 'package.json'), 'utf8'));
  return fields.flatMap((field) => Object.keys(manifest[field] ?? {}));
}

function sources(dir: string): string[] {
  const files: string[] = [];
  const visit = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (/\.(ts|js)$/.test(entry.name) && full !== __filename) files.push(full);
    }
  };
  for (const top of ['src', 'test'])
    if (fs.existsSync(path.join(packages, dir, top))) visit(path.join(packages, dir, top));
  return files;
}

/** Workspace packages a source file imports or requires, specs included (this one's samples aside). */
function importedPackages(text: string): string[] {
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](@teapot\/[a-z0-9-]+)/g);
  return [...found].map((match) => match[1]);
}

describe('layers', () => {
  it('finds the workspace imports of a source, static, dynamic and required', () => {
    const text = [
      "import { percentile } from '@teapot/run-definitions';",
      "export type { RunResult } from '@teapot/measure';",
      "const late = await import('@teapot/measure/dist/run');",
      "const { z } = require('@teapot/contracts');",
      '// prose naming @teapot/measure is no import',
    ].join('\n');
    expect(importedPackages(text)).toEqual([
      '@teapot/run-definitions',
      '@teapot/measure',
      '@teapot/measure',
      '@teapot/contracts',
    ]);
  });

  it('keeps @teapot/measure out of what sits below it, manifests and sources', () => {
    expect(dependencies('measure')).toContain('@teapot/run-definitions');
    for (const dir of BELOW_MEASURE) {
      expect({ dir, dependencies: dependencies(dir) }).toEqual({
        dir,
        dependencies: expect.not.arrayContaining(['@teapot/measure']),
      });
      const files = sources(dir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const imports = importedPackages(fs.readFileSync(file, 'utf8'));
        expect({ file: path.relative(packages, file), imports }).toEqual({
          file: path.relative(packages, file),
          imports: expect.not.arrayContaining(['@teapot/measure']),
        });
      }
    }
  });

  it('gives the base packages no dependency of ours', () => {
    for (const dir of BASE) {
      expect({ dir, ours: ours(dependencies(dir)) }).toEqual({ dir, ours: [] });
      for (const file of sources(dir)) {
        expect({ file, imports: importedPackages(fs.readFileSync(file, 'utf8')) }).toEqual({
          file,
          imports: [],
        });
      }
    }
  });

  it('builds measure, contracts and stats on the base alone (tests aside: measure runs against the simulator)', () => {
    const base = BASE.map((dir) => `@teapot/${dir}`);
    for (const dir of SIDE_BY_SIDE) {
      const runtime = ours(dependencies(dir, ['dependencies', 'peerDependencies']));
      expect({ dir, runtime }).toEqual({ dir, runtime: runtime.filter((name) => base.includes(name)) });
      for (const file of sources(dir).filter((f) => !/\.spec\.ts$|[/\\]test-support[/\\]/.test(f))) {
        const imports = importedPackages(fs.readFileSync(file, 'utf8'));
        const relative = path.relative(packages, file);
        expect({ file: relative, imports }).toEqual({
          file: relative,
          imports: imports.filter((name) => base.includes(name)),
        });
      }
    }
  });
});
