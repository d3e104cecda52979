import { useMemo } from 'preact/hooks';
import { get, type Schemas } from '../api/client';
import { RunTimePlot } from '../components/plot';
import { RunDiagnostics } from '../components/run-diagnostics';
import { ServerMetricsPanel } from '../components/server-metrics-panel';
import { Empty, Show } from '../components/states';
import { TextTable } from '../components/text-table';
import { href } from '../router';
import { configFacts } from '../shape/config';
import { tokenCountFacts, type TokenProvenance } from '../shape/token-counts';
import { errorText, formatMs, formatRate, formatTime } from '../shape/format';
import { tokenTimeline } from '../shape/run-timeline';
import { workloadView } from '../shape/workload';
import { useApi } from '../use-api';
import { SweepLink } from './sweep';

const REQUESTS_PAGE = 500;
// Bounds what one page view downloads; a bigger run is drawn from its first requests and says so.
const MAX_REQUEST_PAGES = 40;

type RunRequest = Schemas['RunRequestDto'];

async function loadRequests(
  id: string,
  signal: AbortSignal,
): Promise<{ items: RunRequest[]; complete: boolean }> {
  const items: RunRequest[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < MAX_REQUEST_PAGES; page++) {
    const body = await get('/runs/{id}/requests', {
      path: { id },
      query: { limit: REQUESTS_PAGE, cursor },
      signal,
    });
    items.push(...body.items);
    if (body.nextCursor === null) return { items, complete: true };
    cursor = Number(body.nextCursor);
  }
  return { items, complete: false };
}

function ItlTimeline({ requests, p99Ms }: { requests: RunRequest[]; p99Ms: number | null }) {
  const timeline = useMemo(() => tokenTimeline(requests), [requests]);
  const data = useMemo(
    () =>
      [Array.from(timeline.timeS), Array.from(timeline.itlMs), Array.from(timeline.timeS, () => p99Ms)] as [
        number[],
        number[],
        Array<number | null>,
      ],
    [timeline, p99Ms],
  );
  if (timeline.timeS.length === 0)
    return <Empty>No successful request carried two token chunks: no ITL to draw.</Empty>;
  return (
    <>
      <RunTimePlot
        label="ITL of every token against time"
        height={320}
        data={data}
        scales={{ y: { distr: 3 } }}
        axes={[{ label: 'ITL (ms, log)', size: 60 }]}
        series={[
          {
            label: 'ITL per token',
            stroke: '#1c7ed6',
            paths: () => null,
            points: { show: true, size: 3, stroke: '#1c7ed6', fill: '#1c7ed6' },
          },
          { label: 'run P99', stroke: '#e8590c', dash: [6, 4], width: 1.5, points: { show: false } },
        ]}
      />
      <p class="hint">
        {timeline.timeS.length} tokens of {timeline.requests} successful requests (warm-up left out), each at
        the arrival of the chunk that carried it. Columns of high points across requests are stalls every
        stream saw at once, e.g. a prefill entering the batch.
      </p>
    </>
  );
}

function Health({ run }: { run: Schemas['RunDetailDto'] }) {
  const health = (run.clientHealth ?? {}) as { saturated?: boolean; saturatedReason?: string };
  if (run.clientSaturated) {
    return (
      <div class="flag big" role="alert">
        <p>
          Client saturated: the measuring process itself was the bottleneck, so these timings describe the
          client, not the server.
        </p>
        {health.saturatedReason ? <p class="reason">{health.saturatedReason}</p> : null}
      </div>
    );
  }
  return (
    <p class="ok">
      Client healthy: event-loop delay P99 {formatMs(run.eventLoopDelayP99Ms)}, max{' '}
      {formatMs(run.eventLoopDelayMaxMs)}.
    </p>
  );
}

/** What the run sent (the profile's workload as snapshotted, and what the run counted) and TTFT by turn. */
function Workload({ run }: { run: Schemas['RunDetailDto'] }) {
  const { facts, turns } = workloadView(run.profileSnapshot, run.summary);
  return (
    <section>
      <h2>Workload</h2>
      <ul class="facts">
        {facts.map((fact) => (
          <li key={fact}>{fact}</li>
        ))}
      </ul>
      {turns.length > 0 ? (
        <TextTable
          className="turns"
          headers={['TTFT by turn', 'requests', 'P50', 'P99']}
          rows={turns.map((t) => [t.label, String(t.count), t.p50, t.p99])}
        />
      ) : null}
    </section>
  );
}

function Errors({ counts }: { counts: Record<string, number> }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return <p>No request failed.</p>;
  return (
    <TextTable
      className="errors"
      headers={['error class', 'requests']}
      rows={rows.map(([k, n]) => [k, String(n)])}
    />
  );
}

export function RunPage({ id }: { id: string }) {
  const run = useApi((signal) => get('/runs/{id}', { path: { id }, signal }), [id]);
  const requests = useApi((signal) => loadRequests(id, signal), [id]);
  return (
    <Show loaded={run} what="the run">
      {(detail) => (
        <>
          <header class="page-header">
            <h1>Run {formatTime(detail.queuedAt)}</h1>
            <p>
              <a href={href.endpoint(detail.endpointId)}>its endpoint</a> ·{' '}
              <span class={`status ${detail.status}`}>{detail.status}</span> · {detail.trigger}
              {detail.error ? ` · ${errorText(detail.error, detail.errorClass)}` : ''}
              {detail.sweepId !== null && detail.sweepIndex !== null ? (
                <>
                  {' · '}
                  <SweepLink sweepId={detail.sweepId} sweepIndex={detail.sweepIndex} />
                </>
              ) : null}
            </p>
            {detail.config ? (
              <ul class="facts">
                {configFacts(detail.config).map((fact) => (
                  <li key={fact}>{fact}</li>
                ))}
              </ul>
            ) : null}
          </header>
          <Health run={detail} />
          <div class="figures">
            {[
              ['ITL P50', formatMs(detail.itlP50Ms)],
              ['ITL P99', formatMs(detail.itlP99Ms)],
              ['TPOT P50', formatMs(detail.tpotP50Ms)],
              ['TPOT P99', formatMs(detail.tpotP99Ms)],
              ['TTFT P50', formatMs(detail.ttftP50Ms)],
              ['TTFT P99', formatMs(detail.ttftP99Ms)],
              ['tokens/s', formatRate(detail.outputTokensPerS, '')],
              [
                'requests ok / failed',
                `${detail.requestsSucceeded ?? '–'} / ${detail.requestsFailed ?? '–'}`,
              ],
            ].map(([label, value]) => (
              <div class="figure" key={label}>
                <span class="label">{label}</span>
                <span class="value">{value}</span>
              </div>
            ))}
          </div>
          <Workload run={detail} />
          <section>
            <h2>ITL of every token</h2>
            <Show loaded={requests} what="per-token timings">
              {({ items, complete }) => (
                <>
                  {!complete ? <p class="hint">Drawn from the first {items.length} requests only.</p> : null}
                  <ItlTimeline requests={items} p99Ms={detail.itlP99Ms} />
                </>
              )}
            </Show>
          </section>
          <RunDiagnostics run={detail} />
          <ServerMetricsPanel runId={detail.id} diagnostics={detail.serverDiagnostics} />
          <section>
            <h2>Token counts</h2>
            <ul class="facts">
              {tokenCountFacts(detail.summary as TokenProvenance | null).map((fact) => (
                <li key={fact}>{fact}</li>
              ))}
            </ul>
          </section>
          <section>
            <h2>Errors by class</h2>
            <Errors counts={detail.errorCounts as Record<string, number>} />
          </section>
        </>
      )}
    </Show>
  );
}
