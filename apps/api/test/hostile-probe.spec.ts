import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { startApiForFile } from './api';
import { all, hostileRoutesForFile } from './hostile';
import { type Operation, resolve } from './routes';

const api = startApiForFile();
const routes = hostileRoutesForFile(api);

/** Ways one whole number can be misspelt; each must be refused, not read as 1, 1000 or 16. */
const MISSPELT_NUMBERS = ['01', '1e3', '0x10', ' 5', '+5', '5.0', '-0'];
/** Times Postgres cannot store or the calendar does not have, and times without a zone. */
const IMPOSSIBLE_TIMES = [
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-02-30T00:00:00Z',
  '2026-01-01T00:00:00',
];
const cursorAt = (time: string) =>
  Buffer.from(`${time}|00000000-0000-4000-8000-000000000000`).toString('base64url');

/** Each class of input an outside probe found mishandled, thrown at every route it applies to. */
describe('every class the outside probe found, on every route it applies to', () => {
  const isObjectField = (schema: SchemaObject) => {
    const variant = (schema.oneOf?.[0] ?? schema) as SchemaObject & { $ref?: string };
    const resolved = resolve(routes.doc, variant);
    return Boolean(variant.$ref) || (resolved.type === 'object' && Boolean(resolved.properties));
  };

  /**
   * Tasks: each value `refused` gives for a top-level field of a route's body, set in an otherwise
   * valid body, must be a 400 naming that field.
   */
  const refusedInEveryBody = (refused: (field: string, property: SchemaObject) => unknown[]) => {
    const tasks: Array<() => Promise<void>> = [];
    for (const op of routes.operations.filter((o) => o.body)) {
      const base = routes.validBodyOf(op);
      for (const [field, property] of Object.entries((op.body as SchemaObject).properties ?? {})) {
        for (const value of refused(field, property as SchemaObject)) {
          const body = { ...base, [field]: value };
          tasks.push(() =>
            routes.expectAnswer(op, `${field}=${JSON.stringify(value)}`, { body }, 400, field),
          );
        }
      }
    }
    return tasks;
  };

  /** Tasks: each value `refused` gives for a query parameter of a route must be a 400 naming it. */
  const refusedInEveryQuery = (refused: (parameter: Operation['query'][number]) => string[]) => {
    const tasks: Array<() => Promise<void>> = [];
    for (const op of routes.operations) {
      for (const parameter of op.query) {
        const { name } = parameter;
        for (const value of refused(parameter)) {
          const query = `${name}=${encodeURIComponent(value)}`;
          tasks.push(() =>
            routes.expectAnswer(op, `?${name}=${JSON.stringify(value).slice(0, 40)}`, { query }, 400, name),
          );
        }
      }
    }
    return tasks;
  };

  it('compressed bodies: 415 before the key is checked, on every route with a body', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations.filter((o) => o.body)) {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        tasks.push(() =>
          routes.expectAnswer(
            op,
            `Content-Encoding: ${encoding}`,
            {
              anonymous: true,
              headers: { 'content-encoding': encoding },
              raw: ['{"a": 1}', 'application/json'],
            },
            415,
          ),
        );
      }
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(15);
  });

  it('10,000-deep JSON: a plain 400 on every route with a body', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const tasks = routes.operations
      .filter((o) => o.body)
      .map((op) => () => routes.expectAnswer(op, '10,000 levels', { raw: [deep, 'application/json'] }, 400));
    await all(tasks);
    expect(routes.failures).toEqual([]);
  });

  it('merge-patch+json: read (an unknown field is refused, not ignored) on every PATCH', async () => {
    const tasks = routes.operations
      .filter((o) => o.method === 'patch')
      .map(
        (op) => () =>
          routes.expectAnswer(
            op,
            'merge-patch with an unknown field',
            { raw: ['{"unexpected": 1}', 'application/merge-patch+json'] },
            400,
            'unexpected',
          ),
      );
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
  });

  it('arrays where an object belongs: 400 naming the field, for every object field of every body', async () => {
    const tasks = refusedInEveryBody((_field, property) => {
      if (!isObjectField(property)) return [];
      const nested = resolve(routes.doc, (property.oneOf?.[0] ?? property) as SchemaObject);
      return [[], [routes.validBody(nested)]];
    });
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(10);
  });

  it('names: blank, CR/LF and bidi controls refused in every name and model of every body', async () => {
    const tasks = refusedInEveryBody((field) =>
      /^(name|model)$/.test(field) ? ['   ', 'a\r\nb', 'evil\u202Etxt.exe', '\u2066x'] : [],
    );
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(12);
  });

  it('ids in a body that name nothing: 404 naming the field, on every POST', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations.filter((o) => o.body && o.method === 'post')) {
      const body = op.body as SchemaObject;
      const base = routes.validBodyOf(op);
      for (const [field, property] of Object.entries(body.properties ?? {})) {
        if (!field.endsWith('Id') || (property as SchemaObject).format !== 'uuid') continue;
        if (!(body.required ?? []).includes(field)) continue;
        const nobody = { ...base, [field]: '00000000-0000-4000-8000-000000000000' };
        tasks.push(() => routes.expectAnswer(op, `${field} names nothing`, { body: nobody }, 404, field));
      }
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
  });

  it('whole numbers: every integer parameter, in the query or the path, refuses other spellings', async () => {
    const tasks = refusedInEveryQuery(({ schema }) => (schema.type === 'integer' ? MISSPELT_NUMBERS : []));
    for (const op of routes.operations) {
      for (const name of op.pathParams.filter((p) => op.pathParamSchemas[p]?.type === 'integer')) {
        for (const value of MISSPELT_NUMBERS) {
          const params = { ...routes.validParams(op), [name]: value };
          tasks.push(() =>
            routes.expectAnswer(op, `${name}=${JSON.stringify(value)}`, { params }, 400, name),
          );
        }
      }
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(40);
  });

  it('times: every date-time parameter and every time cursor refuses impossible times with 400', async () => {
    const tasks = refusedInEveryQuery(({ name, schema }) =>
      schema.format === 'date-time'
        ? IMPOSSIBLE_TIMES
        : name === 'cursor' && schema.type !== 'integer'
          ? IMPOSSIBLE_TIMES.map(cursorAt)
          : [],
    );
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(20);
  });

  it('name searches: LIKE wildcards match themselves on every list with ?name=', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations.filter(
      (o) => o.method === 'get' && o.query.some((q) => q.name === 'name'),
    )) {
      tasks.push(async () => {
        const response = await routes.send(op, '?name=%', { query: 'name=%25' });
        const names = (response.body.items ?? []).map((item) => (item as { name: string }).name);
        if (names.some((name) => !name.includes('%'))) {
          routes.failures.push(`GET ${op.path}?name=% matched ${names.length} names without a %`);
        }
      });
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(1);
  });
});
