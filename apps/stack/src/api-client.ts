import type { DeploymentVerification, HeadlineFigures } from '@teapot/contracts';
/** The slices of the REST API's responses the launcher reads (see apps/api DTOs and /docs). */
export interface EndpointView {
  id: string;
  name: string;
  baseUrl: string;
  metricsUrl: string | null;
  apiKind: string;
  model: string;
  archivedAt: string | null;
}

export interface ServingConfigView {
  version: number;
  [field: string]: unknown;
}

export interface ProfileView {
  id: string;
  name: string;
  endpointId: string;
  [field: string]: unknown;
}

/** A run as GET /runs lists it: every catalogue headline figure, and the run's state. */
export interface RunView extends HeadlineFigures {
  id: string;
  profileId: string | null;
  status: string;
  error: string | null;
  /** endpoint, config, worker_lost, stopped or internal (the API's RunDto.errorClass); null when it succeeded. */
  errorClass: string | null;
  queuedAt: string;
  clientSaturated: boolean | null;
  transport: string | null;
  measureVersion: string | null;
}

/** GET /trends, as the launcher reads it. */
export interface TrendView {
  metric: string;
  statistic: string;
  unit: string;
  excludedSaturatedRuns: number;
  reason?: string;
  series: Array<{
    key: Record<string, unknown>;
    points: Array<{ start: string; value: number | null; runs: number; samples: number }>;
  }>;
}

/** POST /comparisons, as the launcher reads it. */
export interface ComparisonView {
  baseline: { runs: number };
  candidate: { runs: number };
  resampling: { unit: string; why: string };
  metrics: Array<{
    metric: string;
    statistic: string;
    unit: string;
    baseline: number | null;
    candidate: number | null;
    relativeDelta: number | null;
    relativeCi: [number, number] | null;
    pValue: number | null;
    verdict: string;
    insufficient?: string;
  }>;
  roofline: Record<
    'baseline' | 'candidate',
    {
      floorMs: number | null;
      tpotP50Ms: number | null;
      achievedFraction: number | null;
      gpu?: string;
      reason?: string;
    }
  > | null;
  verdict: string;
  notes: string[];
  reason?: string;
}

/** A deployment as GET /deployments/{id} answers (its verification once `verdict` is not pending). */
export interface DeploymentView {
  id: string;
  endpointId: string;
  label: string;
  version: string | null;
  effectiveAt: string;
  verdict: string;
  verification: DeploymentVerification | null;
  verifiedAt: string | null;
  runs: Array<{ id: string; profileId: string | null; status: string }>;
}

/** GET /sweeps/{id}: what the demo prints of a capacity search. */
export interface SweepView {
  id: string;
  status: string;
  stopReason: string | null;
  capacity: number | null;
  unit: string;
  bracket: { passed: number | null; failed: number | null };
  costPerMillionOutputTokensUsdAtCapacity: number | null;
  error: string | null;
  points: Array<{
    index: number;
    offered: number | null;
    runStatus: string;
    figures: { met: boolean | null } | null;
  }>;
}

/** POST /webhooks/subscriptions: the secret is in this answer only. */
export interface SubscriptionView {
  id: string;
  url: string;
  eventTypes: string[];
  active: boolean;
  secret: string;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const REQUEST_TIMEOUT_MS = 15_000;
const PAGE_SIZE = 200;

export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';

  constructor(
    readonly status: number,
    what: string,
    detail: string,
  ) {
    super(`${what} answered ${status}: ${detail}`);
  }
}

/** A small client of teapot's REST API: real HTTP, the API key as a bearer token. */
export class TeapotApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  /** True once GET /health answers 200 (Postgres and Redis up as the API sees them). */
  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  /** The endpoint with exactly this name, archived ones included. */
  async findEndpoint(name: string): Promise<EndpointView | null> {
    const found = await this.all<EndpointView>('/endpoints', { name, includeArchived: 'true' });
    return found.find((endpoint) => endpoint.name === name) ?? null;
  }

  createEndpoint(body: Record<string, unknown>): Promise<EndpointView> {
    return this.request('POST', '/endpoints', body);
  }

  updateEndpoint(id: string, body: Record<string, unknown>): Promise<EndpointView> {
    return this.request('PATCH', `/endpoints/${id}`, body);
  }

  /** Newest version first. */
  async servingConfigs(endpointId: string): Promise<ServingConfigView[]> {
    const { items } = await this.request<{ items: ServingConfigView[] }>(
      'GET',
      `/endpoints/${endpointId}/configs`,
    );
    return items;
  }

  addServingConfig(endpointId: string, body: Record<string, unknown>): Promise<ServingConfigView> {
    return this.request('POST', `/endpoints/${endpointId}/configs`, body);
  }

  async findProfile(endpointId: string, name: string): Promise<ProfileView | null> {
    const found = await this.all<ProfileView>('/profiles', { endpointId });
    return found.find((profile) => profile.name === name) ?? null;
  }

  createProfile(body: Record<string, unknown>): Promise<ProfileView> {
    return this.request('POST', '/profiles', body);
  }

  updateProfile(id: string, body: Record<string, unknown>): Promise<ProfileView> {
    return this.request('PATCH', `/profiles/${id}`, body);
  }

  /** Runs of a profile queued at or after `since`, newest first. */
  runsOf(profileId: string, since: Date): Promise<RunView[]> {
    return this.all<RunView>('/runs', { profileId, from: since.toISOString() });
  }

  /** GET /trends with these query parameters (arrays repeat the parameter). */
  trend(query: Record<string, string | string[]>): Promise<TrendView> {
    return this.request('GET', `/trends?${trendQuery(query)}`);
  }

  /** POST /comparisons with this body. */
  compare(body: Record<string, unknown>): Promise<ComparisonView> {
    return this.request('POST', '/comparisons', body);
  }

  /** POST /sweeps: a capacity search of the profile, measured point by point by the worker. */
  startSweep(profileId: string): Promise<SweepView> {
    return this.request('POST', '/sweeps', { profileId });
  }

  sweep(id: string): Promise<SweepView> {
    return this.request('GET', `/sweeps/${id}`);
  }

  /** POST /deployments with this body. */
  createDeployment(body: Record<string, unknown>): Promise<DeploymentView> {
    return this.request('POST', '/deployments', body);
  }

  deployment(id: string): Promise<DeploymentView> {
    return this.request('GET', `/deployments/${id}`);
  }

  /** POST /webhooks/subscriptions with this body. */
  createSubscription(body: Record<string, unknown>): Promise<SubscriptionView> {
    return this.request('POST', '/webhooks/subscriptions', body);
  }

  /** PATCH /webhooks/subscriptions/{id}, e.g. `{ active: false }`. */
  updateSubscription(id: string, body: Record<string, unknown>): Promise<Omit<SubscriptionView, 'secret'>> {
    return this.request('PATCH', `/webhooks/subscriptions/${id}`, body);
  }

  private async all<T>(path: string, query: Record<string, string>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({
        ...query,
        limit: String(PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      });
      const page: Page<T> = await this.request<Page<T>>('GET', `${path}?${params}`);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path.split('?')[0]}`;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiRequestError(response.status, what, errorDetail(text));
    return JSON.parse(text) as T;
  }
}

/** The API's error body names the problem in `message`; anything else is shown as it came. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, 500) || '(empty body)';
}

export function trendQuery(query: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return params.toString();
}
