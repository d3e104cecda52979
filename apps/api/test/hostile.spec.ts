import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { created, endpointBody, profileBody, startApiForFile } from './api';
import { fillPath, type Operation, operationsOf, resolve } from './routes';

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

/** Messages that show internals instead of saying what to fix. */
const INTERNALS = /call stack|prisma|invalid `|\bat [\w.]+ \(|SQLSTATE|ECONNREFUSED/i;

const api = startApiForFile();
let operations: Operation[];
let validParams: (op: Operation) => Record<string, string>;
let validBody: (schema: SchemaObject) => Record<string, unknown>;
let knownGood: Record<string, Record<string, unknown>> = {};
/** A body the route accepts: a known good one, or the required fields filled from the schema. */
const validBodyOf = (op: Operation) =>
  structuredClone(knownGood[`${op.method} ${op.path}`] ?? validBody(op.body as SchemaObject));
let failures: string[] = [];
beforeEach(() => {
  failures = [];
});

beforeAll(async () => {
  const endpoint = await created(api, '/endpoints', endpointBody({ config: { engine: 'vllm' } }));
  const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
  const run = await created(api, '/runs', { profileId: profile.id });
  const key = await created(api, '/api-keys', { name: 'victim', scope: 'read' });
  const subscription = await created(api, '/webhooks/subscriptions', {
    url: 'https://hooks.example.com/teapot',
    eventTypes: ['run.failed'],
  });
  const ping = (
    await api.authed.post(`/webhooks/subscriptions/${subscription.id as string}/ping`).expect(202)
  ).body as { eventId: string; deliveryId: string };
  const deployment = await created(api, '/deployments', { endpointId: endpoint.id, label: 'victim' });
  const sweepProfile = await created(
    api,
    '/profiles',
    profileBody(endpoint.id as string, { sweep: { kind: 'points', dimension: 'rate', points: [1, 2] } }),
  );
  const sweep = (await api.authed.post('/sweeps').send({ profileId: sweepProfile.id }).expect(202)).body as {
    id: string;
  };
  const found = await operationsOf(api);
  operations = found.operations;
  docRef = found.doc;
  // Bodies whose fields depend on each other, which the schema alone cannot say how to fill.
  knownGood = {
    'post /profiles': profileBody(endpoint.id as string),
    'post /sweeps': { profileId: sweepProfile.id },
    'post /comparisons': {
      baseline: {
        from: '2026-01-01T00:00:00Z',
        endpointIds: [endpoint.id],
        config: { weightQuant: ['fp8'], gpuCount: [1] },
        includeSaturated: false,
      },
      candidate: { runIds: [run.id], triggers: ['manual'] },
      metrics: ['itl', 'error_rate'],
      statistics: ['p99'],
      thresholds: { itl: 0.1, 'itl.p99': 0.2 },
      resample: 'auto',
      iterations: 200,
      seed: 3,
    },
  };
  const idFor: Record<string, string> = {
    endpoints: endpoint.id as string,
    profiles: profile.id as string,
    runs: run.id as string,
    'api-keys': key.id as string,
    'webhooks/subscriptions': subscription.id as string,
    'webhooks/events': ping.eventId,
    'webhooks/deliveries': ping.deliveryId,
    deployments: deployment.id as string,
    sweeps: sweep.id,
  };
  validParams = (op) => ({
    id:
      idFor[op.path.split('/').slice(1, 3).join('/')] ??
      idFor[op.path.split('/')[1]] ??
      (endpoint.id as string),
    endpointId: endpoint.id as string,
    version: '1',
  });
  let unique = 0;
  const sample = (schema: SchemaObject, name: string): unknown => {
    const resolved = resolve(found.doc, schema.oneOf?.[0] ?? schema);
    if (name === 'endpointId') return endpoint.id;
    if (name === 'profileId') return profile.id;
    if (name === 'name') return `hostile-${++unique}`;
    if (resolved.example !== undefined) return resolved.example;
    if (resolved.enum) return resolved.enum[0];
    switch (resolved.type) {
      case 'integer':
      case 'number':
        return resolved.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return [sample(resolved.items as SchemaObject, '')];
      case 'object':
        return resolved.properties ? validBody(resolved) : {};
      default:
        return 'x';
    }
  };
  validBody = (schema) =>
    Object.fromEntries(
      (schema.required ?? []).map((name) => [name, sample(schema.properties?.[name] as SchemaObject, name)]),
    );
}, 60_000);

interface SendOptions {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: [string | Buffer, string];
  headers?: Record<string, string>;
  /** Send without the API key. */
  anonymous?: boolean;
}

interface Answer {
  status: number;
  body: { statusCode?: number; message?: string; details?: Array<{ field: string }>; items?: unknown[] };
}

async function send(op: Operation, what: string, options: SendOptions): Promise<Answer> {
  const url =
    fillPath(op.path, options.params ?? validParams(op)) + (options.query ? `?${options.query}` : '');
  let request = api.http[op.method](url);
  if (!options.anonymous) request = request.set('authorization', api.auth);
  for (const [name, value] of Object.entries(options.headers ?? {})) request = request.set(name, value);
  if (options.raw) request = request.set('content-type', options.raw[1]).send(options.raw[0]);
  else if (options.body !== undefined) request = request.send(options.body as object);
  const response = await request.catch((error: Error) => ({
    status: 0,
    body: { message: error.message } as Answer['body'],
  }));
  const label = `${op.method.toUpperCase()} ${op.path} ${what}`;
  if (INTERNALS.test(String(response.body?.message ?? ''))) {
    failures.push(`${label} -> ${response.status} says how it broke inside: ${response.body.message}`);
  } else if (response.status >= 500 || response.status === 0) {
    failures.push(`${label} -> ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
  } else if (
    response.status >= 400 &&
    (response.body?.statusCode !== response.status || typeof response.body?.message !== 'string')
  ) {
    failures.push(
      `${label} -> ${response.status} without the error shape: ${JSON.stringify(response.body).slice(0, 200)}`,
    );
  }
  return response as Answer;
}

/** Sends, and records a failure unless the answer has `status` (and names `field` when given). */
async function expectAnswer(
  op: Operation,
  what: string,
  options: SendOptions,
  status: number,
  field?: string,
): Promise<void> {
  const response = await send(op, what, options);
  const label = `${op.method.toUpperCase()} ${op.path} ${what}`;
  if (response.status !== status) {
    failures.push(
      `${label} -> ${response.status}, not ${status}: ${JSON.stringify(response.body).slice(0, 200)}`,
    );
  } else if (field && !response.body.details?.some((detail) => detail.field === field)) {
    failures.push(
      `${label} -> ${status} without naming ${field}: ${JSON.stringify(response.body).slice(0, 200)}`,
    );
  }
}

/** Sends a batch a few at a time: fast, without swamping a busy machine. */
async function all(tasks: Array<() => Promise<unknown>>): Promise<void> {
  for (let i = 0; i < tasks.length; i += 8) await Promise.all(tasks.slice(i, i + 8).map((task) => task()));
}

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
      const nested = resolve(docOf(), variant as SchemaObject);
      for (const child of Object.keys(nested.properties ?? {})) paths.push([name, child]);
    }
  }
  return paths;
}
let docRef: Awaited<ReturnType<typeof operationsOf>>['doc'] | undefined;
function docOf() {
  if (!docRef) throw new Error('document not loaded');
  return docRef;
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
  beforeAll(async () => {
    docRef = (await operationsOf(api)).doc;
  });

  it('covers every route of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16);
  });

  it('bodies: every field, every hostile value, plus raw payloads', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations.filter((o) => o.body)) {
      const base = validBody(op.body as SchemaObject);
      for (const path of fieldPaths(op.body as SchemaObject)) {
        for (const [name, value] of HOSTILE_VALUES) {
          tasks.push(() => send(op, `${path.join('.')}=${name}`, { body: withValue(base, path, value) }));
        }
      }
      for (const [name, raw, type] of RAW_BODIES) tasks.push(() => send(op, name, { raw: [raw, type] }));
      const everyString = Object.fromEntries(
        Object.keys(base).map((key) => [key, 'y'.repeat(900_000 / Object.keys(base).length)]),
      );
      tasks.push(() => send(op, 'every field a long string, 900 KB in all', { body: everyString }));
      tasks.push(() => send(op, 'array body', { body: [base] }));
    }
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThan(1000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it('query strings: every parameter, every hostile value, repeated and unknown parameters', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations) {
      for (const { name } of op.query) {
        for (const value of HOSTILE_QUERY_VALUES) {
          tasks.push(() =>
            send(op, `?${name}=${value.slice(0, 20)}`, { query: `${name}=${encodeURIComponent(value)}` }),
          );
        }
        tasks.push(() => send(op, `?${name} twice`, { query: `${name}=1&${name}=2` }));
        tasks.push(() => send(op, `?${name}[]`, { query: `${name}[]=1&${name}[x]=2` }));
      }
      tasks.push(() => send(op, '?unknown', { query: 'unexpected=1' }));
      tasks.push(() => send(op, '?raw NUL', { query: `${op.query[0]?.name ?? 'x'}=a%00b` }));
      tasks.push(() => send(op, '?__proto__', { query: '__proto__=x&constructor[prototype][polluted]=1' }));
    }
    await all(tasks);
    expect(failures).toEqual([]);
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
      const op = operations.find((o) => o.path === path && o.method === 'get') as Operation;
      const tasks: Array<() => Promise<unknown>> = [];
      for (const { name } of op.query) {
        for (const value of [...HOSTILE_QUERY_VALUES, ...extra]) {
          const query = new URLSearchParams({ ...valid, [name]: value }).toString();
          tasks.push(() => send(op, `valid query, ?${name}=${value.slice(0, 20)}`, { query }));
        }
      }
      await all(tasks);
      expect(failures).toEqual([]);
      expect(tasks.length).toBeGreaterThan(atLeast);
    },
    60_000,
  );

  it('comparisons: every field and nested value hostile inside an otherwise valid body', async () => {
    const op = operations.find((o) => o.path === '/comparisons' && o.method === 'post') as Operation;
    const valid = validBodyOf(op);
    const good = await send(op, 'the valid body', { body: valid });
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
        tasks.push(() => send(op, `${path.join('.')}=${name}`, { body: withValue(valid, path, value) }));
      }
    }
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThan(300);
  }, 120_000);

  it('path parameters: invalid UUIDs, numbers out of range, traversal, malformed escapes', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations) {
      for (const param of op.pathParams) {
        for (const value of HOSTILE_PATH_VALUES) {
          const params = { ...validParams(op), [param]: value };
          const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]);
          tasks.push(() =>
            send({ ...op, path: url, pathParams: [] }, `${param}=${value.slice(0, 20)}`, { params: {} }),
          );
        }
      }
    }
    await all(tasks);
    expect(failures).toEqual([]);
  }, 60_000);
});

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
    const resolved = resolve(docOf(), variant);
    return Boolean(variant.$ref) || (resolved.type === 'object' && Boolean(resolved.properties));
  };

  /**
   * Tasks: each value `refused` gives for a top-level field of a route's body, set in an otherwise
   * valid body, must be a 400 naming that field.
   */
  const refusedInEveryBody = (refused: (field: string, property: SchemaObject) => unknown[]) => {
    const tasks: Array<() => Promise<void>> = [];
    for (const op of operations.filter((o) => o.body)) {
      const base = validBodyOf(op);
      for (const [field, property] of Object.entries((op.body as SchemaObject).properties ?? {})) {
        for (const value of refused(field, property as SchemaObject)) {
          const body = { ...base, [field]: value };
          tasks.push(() => expectAnswer(op, `${field}=${JSON.stringify(value)}`, { body }, 400, field));
        }
      }
    }
    return tasks;
  };

  /** Tasks: each value `refused` gives for a query parameter of a route must be a 400 naming it. */
  const refusedInEveryQuery = (refused: (parameter: Operation['query'][number]) => string[]) => {
    const tasks: Array<() => Promise<void>> = [];
    for (const op of operations) {
      for (const parameter of op.query) {
        const { name } = parameter;
        for (const value of refused(parameter)) {
          const query = `${name}=${encodeURIComponent(value)}`;
          tasks.push(() =>
            expectAnswer(op, `?${name}=${JSON.stringify(value).slice(0, 40)}`, { query }, 400, name),
          );
        }
      }
    }
    return tasks;
  };

  it('compressed bodies: 415 before the key is checked, on every route with a body', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations.filter((o) => o.body)) {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        tasks.push(() =>
          expectAnswer(
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
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(15);
  });

  it('10,000-deep JSON: a plain 400 on every route with a body', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const tasks = operations
      .filter((o) => o.body)
      .map((op) => () => expectAnswer(op, '10,000 levels', { raw: [deep, 'application/json'] }, 400));
    await all(tasks);
    expect(failures).toEqual([]);
  });

  it('merge-patch+json: read (an unknown field is refused, not ignored) on every PATCH', async () => {
    const tasks = operations
      .filter((o) => o.method === 'patch')
      .map(
        (op) => () =>
          expectAnswer(
            op,
            'merge-patch with an unknown field',
            { raw: ['{"unexpected": 1}', 'application/merge-patch+json'] },
            400,
            'unexpected',
          ),
      );
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
  });

  it('arrays where an object belongs: 400 naming the field, for every object field of every body', async () => {
    const tasks = refusedInEveryBody((_field, property) => {
      if (!isObjectField(property)) return [];
      const nested = resolve(docOf(), (property.oneOf?.[0] ?? property) as SchemaObject);
      return [[], [validBody(nested)]];
    });
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(10);
  });

  it('names: blank, CR/LF and bidi controls refused in every name and model of every body', async () => {
    const tasks = refusedInEveryBody((field) =>
      /^(name|model)$/.test(field) ? ['   ', 'a\r\nb', 'evil\u202Etxt.exe', '\u2066x'] : [],
    );
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(12);
  });

  it('ids in a body that name nothing: 404 naming the field, on every POST', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations.filter((o) => o.body && o.method === 'post')) {
      const body = op.body as SchemaObject;
      const base = validBodyOf(op);
      for (const [field, property] of Object.entries(body.properties ?? {})) {
        if (!field.endsWith('Id') || (property as SchemaObject).format !== 'uuid') continue;
        if (!(body.required ?? []).includes(field)) continue;
        const nobody = { ...base, [field]: '00000000-0000-4000-8000-000000000000' };
        tasks.push(() => expectAnswer(op, `${field} names nothing`, { body: nobody }, 404, field));
      }
    }
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
  });

  it('whole numbers: every integer parameter, in the query or the path, refuses other spellings', async () => {
    const tasks = refusedInEveryQuery(({ schema }) => (schema.type === 'integer' ? MISSPELT_NUMBERS : []));
    for (const op of operations) {
      for (const name of op.pathParams.filter((p) => op.pathParamSchemas[p]?.type === 'integer')) {
        for (const value of MISSPELT_NUMBERS) {
          const params = { ...validParams(op), [name]: value };
          tasks.push(() => expectAnswer(op, `${name}=${JSON.stringify(value)}`, { params }, 400, name));
        }
      }
    }
    await all(tasks);
    expect(failures).toEqual([]);
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
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(20);
  });

  it('name searches: LIKE wildcards match themselves on every list with ?name=', async () => {
    const tasks: Array<() => Promise<unknown>> = [];
    for (const op of operations.filter((o) => o.method === 'get' && o.query.some((q) => q.name === 'name'))) {
      tasks.push(async () => {
        const response = await send(op, '?name=%', { query: 'name=%25' });
        const names = (response.body.items ?? []).map((item) => (item as { name: string }).name);
        if (names.some((name) => !name.includes('%'))) {
          failures.push(`GET ${op.path}?name=% matched ${names.length} names without a %`);
        }
      });
    }
    await all(tasks);
    expect(failures).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(1);
  });
});
