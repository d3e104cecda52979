import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'endpoints' }
  | { page: 'endpoint'; id: string }
  | { page: 'run'; id: string }
  | { page: 'sweep'; id: string }
  | { page: 'compare'; query: URLSearchParams }
  | { page: 'missing'; hash: string };

/** Hash routes: the API owns every path, so the dashboard lives at `/` and navigates after `#`. */
export function parseRoute(hash: string): Route {
  const [path, search = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'endpoints')) return { page: 'endpoints' };
  if (parts.length === 2 && parts[0] === 'endpoints')
    return { page: 'endpoint', id: decodeURIComponent(parts[1]) };
  if (parts.length === 2 && parts[0] === 'runs') return { page: 'run', id: decodeURIComponent(parts[1]) };
  if (parts.length === 2 && parts[0] === 'sweeps') return { page: 'sweep', id: decodeURIComponent(parts[1]) };
  if (parts.length === 1 && parts[0] === 'compare')
    return { page: 'compare', query: new URLSearchParams(search) };
  return { page: 'missing', hash };
}

export const href = {
  endpoints: () => '#/',
  endpoint: (id: string) => `#/endpoints/${encodeURIComponent(id)}`,
  run: (id: string) => `#/runs/${encodeURIComponent(id)}`,
  sweep: (id: string) => `#/sweeps/${encodeURIComponent(id)}`,
  compare: (query: Record<string, string> = {}) => {
    const search = new URLSearchParams(query).toString();
    return search ? `#/compare?${search}` : '#/compare';
  },
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
