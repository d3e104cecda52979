import type { components, paths } from '../generated/api';

export type Schemas = components['schemas'];

type GetOperation<P extends keyof paths> = paths[P] extends { get: infer Op } ? Op : never;
/** Paths that answer GET with JSON. */
export type GetPath = {
  [P in keyof paths]: GetOperation<P> extends {
    responses: { 200: { content: { 'application/json': unknown } } };
  }
    ? P
    : never;
}[keyof paths];
export type OkBody<P extends GetPath> =
  GetOperation<P> extends {
    responses: { 200: { content: { 'application/json': infer Body } } };
  }
    ? Body
    : never;
type QueryOf<P extends GetPath> = GetOperation<P> extends { parameters: { query?: infer Q } } ? Q : never;
type PathParamsOf<P extends GetPath> =
  GetOperation<P> extends { parameters: { path: infer Params } } ? Params : never;

export interface GetOptions<P extends GetPath> {
  path?: PathParamsOf<P>;
  query?: QueryOf<P>;
  signal?: AbortSignal;
}

const KEY_STORAGE = 'teapot.apiKey';

/** The key stays in this tab's session: never in a URL, gone when the tab closes. */
export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string): void => sessionStorage.setItem(KEY_STORAGE, key.trim()),
  clear: (): void => sessionStorage.removeItem(KEY_STORAGE),
};

/** A failed call, with the API's own message (its error body names the field). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The key is missing, unknown or revoked: the user has to paste another. */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

/** The URL of a GET route with its path parameters filled in and its query encoded. */
export function urlOf(path: string, params: Record<string, unknown> = {}, query: object = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `${filled}?${text}` : filled;
}

export async function get<P extends GetPath>(path: P, options: GetOptions<P> = {}): Promise<OkBody<P>> {
  const url = urlOf(path, (options.path ?? {}) as Record<string, unknown>, options.query ?? {});
  return (await send(url, { signal: options.signal })) as OkBody<P>;
}

type PostOperation<P extends keyof paths> = paths[P] extends { post: infer Op } ? Op : never;
/** Paths that take a JSON body by POST and answer 200 with JSON (read routes such as comparisons). */
export type PostPath = {
  [P in keyof paths]: PostOperation<P> extends {
    requestBody: { content: { 'application/json': unknown } };
    responses: { 200: { content: { 'application/json': unknown } } };
  }
    ? P
    : never;
}[keyof paths];
export type PostBody<P extends PostPath> =
  PostOperation<P> extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
export type PostOk<P extends PostPath> =
  PostOperation<P> extends { responses: { 200: { content: { 'application/json': infer Body } } } }
    ? Body
    : never;

export async function post<P extends PostPath>(
  path: P,
  body: PostBody<P>,
  options: { signal?: AbortSignal } = {},
): Promise<PostOk<P>> {
  return (await send(path, { signal: options.signal, body: JSON.stringify(body) })) as PostOk<P>;
}

async function send(url: string, options: { signal?: AbortSignal; body?: string }): Promise<unknown> {
  const key = apiKey.get();
  if (!key) throw new ApiError(401, 'Paste an API key to see the dashboard.');
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body,
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(
      0,
      `The API did not answer (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (response.ok) return response.json();
  throw new ApiError(response.status, await errorMessage(response));
}

async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as Partial<Schemas['ErrorBody']> | null;
  const message = body?.message ?? response.statusText;
  if (response.status === 401) return `The API refused this key: ${message}`;
  return `${response.status} ${body?.error ?? ''}: ${message}`.replace(' :', ':');
}
