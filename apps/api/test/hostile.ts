import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { created, endpointBody, profileBody, type RunningApi } from './api';
import { fillPath, type Operation, operationsOf, resolve } from './routes';

/** Messages that show internals instead of saying what to fix. */
const INTERNALS = /call stack|prisma|invalid `|\bat [\w.]+ \(|SQLSTATE|ECONNREFUSED/i;

export interface SendOptions {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  raw?: [string | Buffer, string];
  headers?: Record<string, string>;
  /** Send without the API key. */
  anonymous?: boolean;
}

export interface Answer {
  status: number;
  body: { statusCode?: number; message?: string; details?: Array<{ field: string }>; items?: unknown[] };
}

/** Every route of a running API with one of each resource to aim at, and a record of wrong answers. */
export interface HostileRoutes {
  operations: Operation[];
  doc: OpenAPIObject;
  /** Path parameters naming existing resources of the route's kind. */
  validParams(op: Operation): Record<string, string>;
  /** The required fields of a body schema, filled from the schema. */
  validBody(schema: SchemaObject): Record<string, unknown>;
  /** A body the route accepts: a known good one, or the required fields filled from the schema. */
  validBodyOf(op: Operation): Record<string, unknown>;
  /** Wrong answers of the current test (emptied before each). */
  failures: string[];
  /** Sends, and records a failure on a 5xx, a dropped connection, internals shown or a bad error shape. */
  send(op: Operation, what: string, options: SendOptions): Promise<Answer>;
  /** Sends, and records a failure unless the answer has `status` (and names `field` when given). */
  expectAnswer(
    op: Operation,
    what: string,
    options: SendOptions,
    status: number,
    field?: string,
  ): Promise<void>;
}

/**
 * The file's HostileRoutes over `api` (from startApiForFile, registered before this): filled in
 * beforeAll, so read it inside hooks and tests only.
 */
export function hostileRoutesForFile(api: RunningApi): HostileRoutes {
  const routes = { failures: [] as string[] } as HostileRoutes;
  let knownGood: Record<string, Record<string, unknown>> = {};

  beforeEach(() => {
    routes.failures = [];
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
    const sweep = (await api.authed.post('/sweeps').send({ profileId: sweepProfile.id }).expect(202))
      .body as {
      id: string;
    };
    const found = await operationsOf(api);
    routes.operations = found.operations;
    routes.doc = found.doc;
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
    routes.validParams = (op) => ({
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
          return resolved.properties ? routes.validBody(resolved) : {};
        default:
          return 'x';
      }
    };
    routes.validBody = (schema) =>
      Object.fromEntries(
        (schema.required ?? []).map((name) => [
          name,
          sample(schema.properties?.[name] as SchemaObject, name),
        ]),
      );
  }, 60_000);

  routes.validBodyOf = (op) =>
    structuredClone(knownGood[`${op.method} ${op.path}`] ?? routes.validBody(op.body as SchemaObject));

  routes.send = async (op, what, options) => {
    const url =
      fillPath(op.path, options.params ?? routes.validParams(op)) +
      (options.query ? `?${options.query}` : '');
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
      routes.failures.push(
        `${label} -> ${response.status} says how it broke inside: ${response.body.message}`,
      );
    } else if (response.status >= 500 || response.status === 0) {
      routes.failures.push(`${label} -> ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    } else if (
      response.status >= 400 &&
      (response.body?.statusCode !== response.status || typeof response.body?.message !== 'string')
    ) {
      routes.failures.push(
        `${label} -> ${response.status} without the error shape: ${JSON.stringify(response.body).slice(0, 200)}`,
      );
    }
    return response as Answer;
  };

  routes.expectAnswer = async (op, what, options, status, field) => {
    const response = await routes.send(op, what, options);
    const label = `${op.method.toUpperCase()} ${op.path} ${what}`;
    if (response.status !== status) {
      routes.failures.push(
        `${label} -> ${response.status}, not ${status}: ${JSON.stringify(response.body).slice(0, 200)}`,
      );
    } else if (field && !response.body.details?.some((detail) => detail.field === field)) {
      routes.failures.push(
        `${label} -> ${status} without naming ${field}: ${JSON.stringify(response.body).slice(0, 200)}`,
      );
    }
  };

  return routes;
}

/** Sends a batch a few at a time: fast, without swamping a busy machine. */
export async function all(tasks: Array<() => Promise<unknown>>): Promise<void> {
  for (let i = 0; i < tasks.length; i += 8) await Promise.all(tasks.slice(i, i + 8).map((task) => task()));
}
