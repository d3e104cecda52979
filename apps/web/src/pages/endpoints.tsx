import { get, type Schemas } from '../api/client';
import { Plot, themedAxis } from '../components/plot';
import { Empty, Show } from '../components/states';
import { href } from '../router';
import { configFacts } from '../shape/config';
import { formatMs, formatRate, formatTime } from '../shape/format';
import { hasItl, itlP99Sparkline, latestResult } from '../shape/runs';
import { useApi } from '../use-api';

const SPARKLINE_RUNS = 50;

/** The runs that finished with results (partial runs still measured most requests). */
export const RESULT_STATUSES: Array<Schemas['RunDto']['status']> = ['succeeded', 'partial'];

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div class="figure">
      <span class="label">{label}</span>
      <span class="value">{value}</span>
    </div>
  );
}

export function Sparkline({ data }: { data: [number[], number[]] }) {
  if (data[0].length < 2) return <p class="hint">The P99 ITL sparkline needs two finished runs.</p>;
  return (
    <Plot
      label="P99 ITL of recent runs"
      height={60}
      data={data}
      options={(theme) => ({
        legend: { show: false },
        cursor: { show: false },
        // Room for the first and last points' circles.
        padding: [6, 6, 6, 6],
        scales: { x: { time: true } },
        axes: [themedAxis(theme, { show: false }), themedAxis(theme, { show: false })],
        series: [{}, { stroke: '#e8590c', width: 1.5 }],
      })}
    />
  );
}

function EndpointCard({ endpoint }: { endpoint: Schemas['EndpointDto'] }) {
  const loaded = useApi(
    async (signal) => {
      const [configs, runs] = await Promise.all([
        get('/endpoints/{endpointId}/configs', { path: { endpointId: endpoint.id }, signal }),
        get('/runs', {
          query: { endpointId: endpoint.id, status: RESULT_STATUSES, limit: SPARKLINE_RUNS },
          signal,
        }),
      ]);
      return { config: configs.items[0], runs: runs.items };
    },
    [endpoint.id],
  );
  return (
    <article class="card endpoint-card" data-endpoint={endpoint.name}>
      <h2>
        <a href={href.endpoint(endpoint.id)}>{endpoint.name}</a>
      </h2>
      <p class="model">{endpoint.model}</p>
      <Show loaded={loaded} what="the latest results">
        {({ config, runs }) => {
          // With no clean result yet, the newest measured run still shows, flagged.
          const latest = latestResult(runs) ?? runs.find(hasItl);
          const clean = itlP99Sparkline(runs);
          const sparkline = clean[0].length >= 2 ? clean : itlP99Sparkline(runs, true);
          return (
            <>
              <ul class="facts">
                {config ? (
                  configFacts(config).map((fact) => <li key={fact}>{fact}</li>)
                ) : (
                  <li>no serving configuration recorded</li>
                )}
              </ul>
              {latest ? (
                <>
                  <div class="figures">
                    <Figure label="ITL P50" value={formatMs(latest.itlP50Ms)} />
                    <Figure label="ITL P99" value={formatMs(latest.itlP99Ms)} />
                    <Figure label="TPOT P50" value={formatMs(latest.tpotP50Ms)} />
                    <Figure label="TTFT P50" value={formatMs(latest.ttftP50Ms)} />
                    <Figure label="TTFT P99" value={formatMs(latest.ttftP99Ms)} />
                    <Figure label="tokens/s" value={formatRate(latest.outputTokensPerS, '')} />
                  </div>
                  {latest.clientSaturated ? (
                    <p class="flag">The client was saturated in this run: not a clean result.</p>
                  ) : null}
                  <Sparkline data={sparkline} />
                  {sparkline !== clean ? (
                    <p class="hint">The sparkline includes runs whose client was saturated.</p>
                  ) : null}
                  <p class="hint">
                    Latest: <a href={href.run(latest.id)}>{formatTime(latest.finishedAt)}</a>
                  </p>
                </>
              ) : (
                <Empty>No finished runs yet: the first scheduled run shows up here.</Empty>
              )}
            </>
          );
        }}
      </Show>
    </article>
  );
}

export function EndpointsPage() {
  const loaded = useApi((signal) => get('/endpoints', { query: { limit: 200 }, signal }), []);
  return (
    <section>
      <h1>Endpoints</h1>
      <Show loaded={loaded} what="endpoints">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>
              <p>No endpoints are registered yet.</p>
              <p>
                Register one with <code>POST /endpoints</code> (see <a href="/docs">the API docs</a>) and give
                it a profile with a schedule; its results appear here after the first run.
              </p>
            </Empty>
          ) : (
            <div class="cards">
              {page.items.map((endpoint) => (
                <EndpointCard key={endpoint.id} endpoint={endpoint} />
              ))}
            </div>
          )
        }
      </Show>
    </section>
  );
}
