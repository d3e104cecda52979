import type { DeploymentVerification } from '@teapot/contracts';

/**
 * Why a call to the teapot API failed, each with its own exit code (EXIT in exit-codes.ts): a CI
 * job can tell "the gate could not run" from "the deployment regressed".
 */
export type ApiFailureKind = 'unreachable' | 'unauthorized' | 'not_found' | 'refused' | 'api_error';

/** A failed call, said in one line that names what to check; never carries the key. */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';

  constructor(
    readonly kind: ApiFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** GET /deployments/{id}, the fields the gate reads. */
export interface Deployment {
  id: string;
  endpointId: string;
  label: string;
  version: string | null;
  effectiveAt: string;
  verdict: DeploymentVerification['verdict'] | 'pending';
  verification: DeploymentVerification | null;
  verifiedAt: string | null;
  settings: { includeSaturated: boolean };
  runs: Array<{ status: string }>;
  sweeps: Array<{ status: string }>;
}

export interface Endpoint {
  id: string;
  name: string;
}

const REQUEST_TIMEOUT_MS = 20_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The calls `teapot deploy` and `teapot verdict` make, over fetch, with the key as a bearer token. */
export class TeapotApi {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  /** An endpoint by id, or by its exact name (what a CI job knows). */
  async endpoint(idOrName: string): Promise<Endpoint> {
    if (UUID.test(idOrName)) return this.call('GET', `/endpoints/${idOrName}`, `endpoint ${idOrName}`);
    // the API's name filter matches a part of the name: page on until the exact one
    let found: Endpoint | undefined;
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ name: idOrName, limit: '200', ...(cursor ? { cursor } : {}) });
      const page: { items: Endpoint[]; nextCursor: string | null } = await this.call(
        'GET',
        `/endpoints?${query}`,
        'the endpoints',
      );
      found = page.items.find((endpoint) => endpoint.name === idOrName);
      cursor = page.nextCursor;
    } while (!found && cursor);
    if (!found)
      throw new ApiFailure(
        'not_found',
        `no endpoint named "${idOrName}" at ${this.baseUrl} (--endpoint takes an endpoint's id or exact name)`,
      );
    return found;
  }

  createDeployment(body: Record<string, unknown>): Promise<Deployment> {
    return this.call('POST', '/deployments', 'the deployment', body);
  }

  deployment(id: string): Promise<Deployment> {
    return this.call('GET', `/deployments/${encodeURIComponent(id)}`, `deployment ${id}`);
  }

  private async call<T>(method: string, path: string, what: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: json(body), signal });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : (cause?.code ?? (error as Error).message);
      throw new ApiFailure(
        'unreachable',
        `cannot reach the teapot API at ${this.baseUrl} (${reason}); is it running? (--url or TEAPOT_URL)`,
      );
    }
    const text = await response.text();
    if (response.ok) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ApiFailure(
          'api_error',
          `${this.baseUrl}${path.split('?')[0]} answered ${response.status} with something other than JSON; is ${this.baseUrl} the teapot API?`,
        );
      }
    }
    throw this.failure(response, what, problemOf(text));
  }

  private failure(response: Response, what: string, problem: string): ApiFailure {
    const { status } = response;
    if (status === 401)
      return new ApiFailure(
        'unauthorized',
        `the teapot API at ${this.baseUrl} refused the API key (401); check --api-key or TEAPOT_API_KEY`,
      );
    if (status === 403)
      return new ApiFailure('unauthorized', `the API key may not do this (403: ${problem}); use a write key`);
    if (status === 429)
      return new ApiFailure(
        'unauthorized',
        `the teapot API is refusing this address after too many wrong keys (429); retry after ${response.headers.get('retry-after') ?? 'a minute'} s with the right key`,
      );
    if (status === 404) return new ApiFailure('not_found', `${what} not found at ${this.baseUrl} (404)`);
    if (status === 400 || status === 409 || status === 413 || status === 422)
      return new ApiFailure('refused', `the teapot API refused ${what} (${status}: ${problem})`);
    return new ApiFailure('api_error', `the teapot API failed on ${what} (${status}: ${problem})`);
  }
}

/** The API's error body names each problem per field; anything else is shown as it came, briefly. */
function problemOf(text: string): string {
  try {
    const body = JSON.parse(text) as {
      message?: unknown;
      details?: Array<{ field?: string; problem?: string }>;
    };
    if (Array.isArray(body.details) && body.details.length > 0)
      return body.details.map((d) => (d.field ? `${d.field}: ${d.problem}` : String(d.problem))).join('; ');
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: shown as text below
  }
  return text.trim().slice(0, 200) || 'empty answer';
}

function json(body: unknown): string | undefined {
  return body === undefined ? undefined : JSON.stringify(body);
}
