import type { ComponentChildren } from 'preact';
import type { Loaded } from '../use-api';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status">
      Loading {what}…
    </p>
  );
}

export function Failure({ message }: { message: string }) {
  return (
    <p class="state error" role="alert">
      {message}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state empty">{children}</div>;
}

/** Loading and error states once, so every page shows them the same way. */
export function Show<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'error') return <Failure message={loaded.error.message} />;
  return <>{children(loaded.data)}</>;
}
