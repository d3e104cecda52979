import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api/client';

export type Loaded<T> =
  { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ready'; data: T };

/** Called when the API refuses the key, so the app asks for another instead of showing a blank page. */
export const KeyRefused = createContext<(error: ApiError) => void>(() => undefined);

/** Loads `load()` again whenever `deps` change; a stale answer never overwrites a newer one. */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const onKeyRefused = useContext(KeyRefused);
  useEffect(() => {
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setLoaded({ state: 'ready', data });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const apiError = error instanceof ApiError ? error : new ApiError(0, String(error));
        if (apiError.unauthorized) onKeyRefused(apiError);
        setLoaded({ state: 'error', error: apiError });
      },
    );
    return () => controller.abort();
  }, deps);
  return loaded;
}
