import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { startApiForFile } from './api';
import { all, hostileRoutesForFile } from './hostile';
import { type Operation, resolve } from './routes';

/** Values thrown into every field of every body. */
const HOSTILE_VALUES: Array<[string, unknown]> = [
  ['null', null],
  ['boolean', true],
  ['zero', 0],
  ['negative', -1],
  ['fraction', 1.5],
  ['enormous', 1e308],
  ['unsafe integer', 2 ** 53 + 1],
  ['empty string', ''],
  ['long string', 'x'.repeat(20_000)],
  ['NaN as text', 'NaN'],
  ['NUL byte', 'a\u0000b'],
  ['array', []],
  ['array of nulls', [null, null]],
  ['empty object', {}],
  ['object with unknown key', { unexpected: 1 }],
  ['1000 levels deep', nest(1000)],
];

const RAW_BODIES: Array<[string, string | Buffer, string]> = [
  ['truncated JSON', '{"name": ', 'application/json'],
  ['trailing garbage', '{} x', 'application/json'],
  ['JSON string', '"just a string"', 'application/json'],
  ['JSON number', '42', 'application/json'],
  ['JSON null', 'null', 'application/json'],
  ['JSON array', '[1, 2, 3]', 'application/json'],
  ['empty object', '{}', 'application/json'],
  ['__proto__ key', '{"__proto__": {"polluted": true}}', 'application/json'],
  ['nested __proto__', '{"extra": {"a": {"__proto__": {"polluted": true}}}}', 'application/json'],
  ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}', 'application/json'],
  ['1000 levels of objects', JSON.stringify(nest(1000)), 'application/json'],
  ['100k levels of arrays', '['.repeat(100_000) + ']'.repeat(100_000), 'application/json'],
  ['1.1 MB string', JSON.stringify({ name: 'x'.repeat(1_100_000) }), 'application/json'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 'application/json'],
  ['UTF-16 charset', '{}', 'application/json; charset=utf-16'],
  ['text/plain', 'hello', 'text/plain'],
  ['form-encoded', 'name=a&apiKind=chat', 'application/x-www-form-urlencoded'],
  ['xml', '<endpoint/>', 'application/xml'],
];

const HOSTILE_QUERY_VALUES = [
  '',
  'NaN',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  'x'.repeat(4000),
  '%00',
  'true,false',
  '{"a":1}',
  '2026-02-30T00:00:00Z',
  '00000000-0000-0000-0000-000000000000',
];

const HOSTILE_PATH_VALUES = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '-1',
  '0',
  '1.5',
  '99999999999999999999',
  'NaN',
  '..%2F..%2Fetc%2Fpasswd',
  'x'.repeat(3000),
  "' OR 1=1 --",
  '%00',
  '%E0%A4%A',
  '__proto__',
];

const api = startApiForFile();
const routes = hostileRoutesForFile(api);

function nest(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/**
 * Field paths of a body schema, one level into nested objects (every variant of a oneOf). A nested
 * schema shared by several routes (e.g. the serving configuration) is attacked through the first.
 */
const attackedNested = new Set<string>();
function fieldPaths(schema: SchemaObject): string[][] {
  const paths: string[][] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    paths.push([name]);
    for (const variant of (property as SchemaObject).oneOf ?? [property]) {
      const ref = (variant as { $ref?: string }).$ref;
      if (ref && attackedNested.has(ref)) continue;
      if (ref) attackedNested.add(ref);
      const nested = resolve(routes.doc, variant as SchemaObject);
      for (const child of Object.keys(nested.properties ?? {})) paths.push([name, child]);
    }
  }
  return paths;
}

function withValue(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let target: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof target[key] !== 'object' || target[key] === null || Array.isArray(target[key]))
      target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
  target[path[path.length - 1]] = value;
  return copy;
}

describe('hostile input at every route never gets a 5xx', () => {
  it('covers every route of the OpenAPI document', () => {
    expect(routes.operations.length).toBeGreaterThanOrEqual(16);
  });

  it('bodies: every field, every hostile value, plus raw payloads', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations.filter((o) => o.body)) {
      const base = routes.validBody(op.body as SchemaObject);
      for (const path of fieldPaths(op.body as SchemaObject)) {
        for (const [name, value] of HOSTILE_VALUES) {
          tasks.push(() =>
            routes.send(op, `${path.join('.')}=${name}`, { body: withValue(base, path, value) }),
          );
        }
      }
      for (const [name, raw, type] of RAW_BODIES)
        tasks.push(() => routes.send(op, name, { raw: [raw, type] }));
      const everyString = Object.fromEntries(
        Object.keys(base).map((key) => [key, 'y'.repeat(900_000 / Object.keys(base).length)]),
      );
      tasks.push(() => routes.send(op, 'every field a long string, 900 KB in all', { body: everyString }));
      tasks.push(() => routes.send(op, 'array body', { body: [base] }));
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThan(1000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it('query strings: every parameter, every hostile value, repeated and unknown parameters', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations) {
      for (const { name } of op.query) {
        for (const value of HOSTILE_QUERY_VALUES) {
          tasks.push(() =>
            routes.send(op, `?${name}=${value.slice(0, 20)}`, {
              query: `${name}=${encodeURIComponent(value)}`,
            }),
          );
        }
        tasks.push(() => routes.send(op, `?${name} twice`, { query: `${name}=1&${name}=2` }));
        tasks.push(() => routes.send(op, `?${name}[]`, { query: `${name}[]=1&${name}[x]=2` }));
      }
      tasks.push(() => routes.send(op, '?unknown', { query: 'unexpected=1' }));
      tasks.push(() => routes.send(op, '?raw NUL', { query: `${op.query[0]?.name ?? 'x'}=a%00b` }));
      tasks.push(() =>
        routes.send(op, '?__proto__', { query: '__proto__=x&constructor[prototype][polluted]=1' }),
      );
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);

  const VALID_QUERIES: Array<[string, Record<string, string>, string[], number]> = [
    [
      '/trends',
      {
        metric: 'itl',
        statistic: 'p99',
        bucket: 'day',
        from: '2026-01-01T00:00:00Z',
        to: '2026-02-01T00:00:00Z',
      },
      ['null', 'p99/p50', 'run', '1970-01-01T00:00:00Z'],
      300,
    ],
    [
      '/change-points',
      {
        metric: 'itl',
        statistic: 'p99',
        mode: 'robust',
        kind: 'step',
        from: '2026-01-01T00:00:00Z',
        to: '2026-02-01T00:00:00Z',
        limit: '10',
      },
      ['null', 'p99/p50', 'drift', 'otava', '1001'],
      150,
    ],
  ];
  it.each(VALID_QUERIES)(
    '%s: every parameter hostile inside an otherwise valid query',
    async (path, valid, extra, atLeast) => {
      const op = routes.operations.find((o) => o.path === path && o.method === 'get') as Operation;
      const tasks: Array<() => Promise<unknown>> = [];
      for (const { name } of op.query) {
        for (const value of [...HOSTILE_QUERY_VALUES, ...extra]) {
          const query = new URLSearchParams({ ...valid, [name]: value }).toString();
          tasks.push(() => routes.send(op, `valid query, ?${name}=${value.slice(0, 20)}`, { query }));
        }
      }
      await all(tasks);
      expect(routes.failures).toEqual([]);
      expect(tasks.length).toBeGreaterThan(atLeast);
    },
    60_000,
  );

  it('comparisons: every field and nested value hostile inside an otherwise valid body', async () => {
    const op = routes.operations.find((o) => o.path === '/comparisons' && o.method === 'post') as Operation;
    const valid = routes.validBodyOf(op);
    const good = await routes.send(op, 'the valid body', { body: valid });
    expect(good.status).toBe(200);
    const paths: string[][] = [];
    const walk = (value: unknown, path: string[]) => {
      if (path.length > 0) paths.push(path);
      if (value && typeof value === 'object' && !Array.isArray(value))
        for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
    };
    walk(valid, []);
    const extra: Array<[string, unknown]> = [
      ['reversed window', '2030-01-01T00:00:00Z'],
      ['a metric without a histogram', ['inter_chunk']],
      ['every statistic', ['p99/p50', 'p99.9', 'mean']],
      ['5,000 run ids', Array.from({ length: 5_000 }, () => '00000000-0000-4000-8000-000000000000')],
      ['a config field that is no field', { vibes: ['x'] }],
      ['config values that are not a list', { weightQuant: 'fp8' }],
    ];
    const tasks: Array<() => Promise<unknown>> = [];
    for (const path of paths) {
      for (const [name, value] of [...HOSTILE_VALUES, ...extra]) {
        tasks.push(() =>
          routes.send(op, `${path.join('.')}=${name}`, { body: withValue(valid, path, value) }),
        );
      }
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
    expect(tasks.length).toBeGreaterThan(300);
  }, 120_000);

  it('path parameters: invalid UUIDs, numbers out of range, traversal, malformed escapes', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of routes.operations) {
      for (const param of op.pathParams) {
        for (const value of HOSTILE_PATH_VALUES) {
          const params = { ...routes.validParams(op), [param]: value };
          const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]);
          tasks.push(() =>
            routes.send({ ...op, path: url, pathParams: [] }, `${param}=${value.slice(0, 20)}`, {
              params: {},
            }),
          );
        }
      }
    }
    await all(tasks);
    expect(routes.failures).toEqual([]);
  }, 60_000);
});
