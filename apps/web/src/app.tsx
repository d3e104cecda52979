import { useCallback, useState } from 'preact/hooks';
import { type ApiError, apiKey } from './api/client';
import { Failure } from './components/states';
import { EndpointPage } from './pages/endpoint';
import { ComparePage } from './pages/compare';
import { EndpointsPage } from './pages/endpoints';
import { RunPage } from './pages/run';
import { SweepPage } from './pages/sweep';
import { href, useRoute } from './router';
import { KeyRefused } from './use-api';

function KeyForm({ problem, onKey }: { problem: string | null; onKey: (key: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="key-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (text.trim()) onKey(text.trim());
      }}
    >
      <h1>teapot</h1>
      {problem ? <Failure message={problem} /> : null}
      <label for="api-key">API key (read scope is enough)</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        value={text}
        onInput={(event) => setText((event.target as HTMLInputElement).value)}
        placeholder="tpk_…"
      />
      <button type="submit">Show the dashboard</button>
      <p class="hint">
        The key stays in this browser tab&apos;s session storage; it is sent only as an Authorization header.
        Make a read key with <code>POST /api-keys</code> (<code>{'{"name":"dashboard","scope":"read"}'}</code>
        ).
      </p>
    </form>
  );
}

export function App() {
  const [hasKey, setHasKey] = useState(() => apiKey.get() !== null);
  const [problem, setProblem] = useState<string | null>(null);
  const route = useRoute();
  const onKeyRefused = useCallback((error: ApiError) => {
    apiKey.clear();
    setProblem(error.message);
    setHasKey(false);
  }, []);

  if (!hasKey) {
    return (
      <KeyForm
        problem={problem}
        onKey={(key) => {
          apiKey.set(key);
          setProblem(null);
          setHasKey(true);
        }}
      />
    );
  }
  return (
    <KeyRefused.Provider value={onKeyRefused}>
      <header class="top">
        <a class="brand" href={href.endpoints()}>
          teapot
        </a>
        <nav>
          <a href={href.endpoints()}>Endpoints</a>
          <a href={href.compare()}>Compare</a>
        </nav>
        <button
          class="link"
          type="button"
          onClick={() => {
            apiKey.clear();
            setHasKey(false);
          }}
        >
          Change key
        </button>
      </header>
      <main>
        {route.page === 'endpoints' ? <EndpointsPage /> : null}
        {route.page === 'endpoint' ? <EndpointPage id={route.id} /> : null}
        {route.page === 'run' ? <RunPage id={route.id} /> : null}
        {route.page === 'sweep' ? <SweepPage id={route.id} /> : null}
        {route.page === 'compare' ? <ComparePage key={route.query.toString()} query={route.query} /> : null}
        {route.page === 'missing' ? <Failure message="There is no such page here." /> : null}
      </main>
    </KeyRefused.Provider>
  );
}
