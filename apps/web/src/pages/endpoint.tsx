import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api/client';
import { RunsTable } from '../components/runs-table';
import { Empty, Show } from '../components/states';
import { SweepsPanel } from '../components/sweeps-panel';
import { TrendPanel } from '../components/trend-panel';
import { configFacts } from '../shape/config';
import { useApi } from '../use-api';

const RUNS_PAGE = 50;

function Runs({ endpointId }: { endpointId: string }) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const loaded = useApi(
    (signal) => get('/runs', { query: { endpointId, limit: RUNS_PAGE, cursor }, signal }),
    [endpointId, cursor],
  );
  return (
    <section>
      <h2>Runs</h2>
      <Show loaded={loaded} what="runs">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No runs yet.</Empty>
          ) : (
            <>
              <RunsTable runs={page.items} />
              <div class="pager">
                {cursors.length > 1 ? (
                  <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
                    Newer
                  </button>
                ) : null}
                {page.nextCursor ? (
                  <button
                    type="button"
                    onClick={() => setCursors([...cursors, page.nextCursor ?? undefined])}
                  >
                    Older
                  </button>
                ) : null}
              </div>
            </>
          )
        }
      </Show>
    </section>
  );
}

function Header({
  endpoint,
  configs,
}: {
  endpoint: Schemas['EndpointDto'];
  configs: Schemas['ServingConfigDto'][];
}) {
  const live = configs[0];
  return (
    <header class="page-header">
      <h1>{endpoint.name}</h1>
      <p class="model">
        {endpoint.model} · {endpoint.apiKind} · {endpoint.baseUrl}
      </p>
      <ul class="facts">
        {live ? (
          configFacts(live).map((fact) => <li key={fact}>{fact}</li>)
        ) : (
          <li>no serving configuration recorded</li>
        )}
      </ul>
    </header>
  );
}

export function EndpointPage({ id }: { id: string }) {
  const loaded = useApi(
    async (signal) => {
      const [endpoint, configs, profiles] = await Promise.all([
        get('/endpoints/{id}', { path: { id }, signal }),
        get('/endpoints/{endpointId}/configs', { path: { endpointId: id }, signal }),
        get('/profiles', { query: { endpointId: id, limit: 100 }, signal }),
      ]);
      return { endpoint, configs: configs.items, profiles: profiles.items };
    },
    [id],
  );
  return (
    <Show loaded={loaded} what="the endpoint">
      {({ endpoint, configs, profiles }) => (
        <>
          <Header endpoint={endpoint} configs={configs} />
          <TrendPanel endpointId={endpoint.id} profiles={profiles} />
          <SweepsPanel endpointId={endpoint.id} configs={configs} />
          <Runs endpointId={endpoint.id} />
        </>
      )}
    </Show>
  );
}
