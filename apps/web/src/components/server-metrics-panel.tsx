import { useMemo } from 'preact/hooks';
import { get, type Schemas } from '../api/client';
import { formatMs } from '../shape/format';
import { useApi } from '../use-api';
import { RunTimePlot } from './plot';
import { Show } from './states';

type ServerMetrics = Schemas['RunServerMetricsDto'];
type Diagnostics = Schemas['ServerDiagnosticsDto'];

const percent = (value: number | undefined) => (value === undefined ? '–' : `${(value * 100).toFixed(1)}%`);
const count = (value: number | undefined, digits = 1) => (value === undefined ? '–' : value.toFixed(digits));

/** The derived figures, each absent one shown as a dash (never as 0). */
function figures(d: Diagnostics): Array<[string, string]> {
  return [
    ['running mean / max', `${count(d.runningMean)} / ${count(d.runningMax, 0)}`],
    ['waiting mean / max', `${count(d.waitingMean)} / ${count(d.waitingMax, 0)}`],
    ['KV cache mean / max', `${percent(d.kvCacheUsageMean)} / ${percent(d.kvCacheUsageMax)}`],
    ['preemptions', count(d.preemptions, 0)],
    ['prefix-cache hit rate', percent(d.prefixCacheHitRate)],
    ['spec-decode acceptance', percent(d.specDecodeAcceptanceRate)],
    ['accepted length', count(d.specDecodeMeanAcceptedLength, 2)],
    ['server TTFT P50 / P99', `${formatMs(d.serverTtftP50Ms)} / ${formatMs(d.serverTtftP99Ms)}`],
    ['server ITL P50 / P99', `${formatMs(d.serverItlP50Ms)} / ${formatMs(d.serverItlP99Ms)}`],
  ];
}

function ServerChart({ metrics }: { metrics: ServerMetrics }) {
  const data = useMemo(() => {
    const timeS = metrics.offsetsMs.map((ms) => ms / 1000);
    const kv = metrics.gauges.kvCacheUsage?.map((v) => (v === null ? null : v * 100)) ?? null;
    return [
      timeS,
      metrics.gauges.running ?? timeS.map(() => null),
      metrics.gauges.waiting ?? timeS.map(() => null),
      metrics.increases.preemptions ?? timeS.map(() => null),
      kv ?? timeS.map(() => null),
    ] as [number[], ...Array<Array<number | null>>];
  }, [metrics]);
  return (
    <RunTimePlot
      label="The server's running and waiting requests, preemptions and KV-cache usage over the run"
      height={220}
      data={data}
      scales={{ pct: { range: [0, 100] } }}
      axes={[
        { label: 'requests, preemptions', size: 60 },
        { label: 'KV cache %', scale: 'pct', side: 1, grid: { show: false } },
      ]}
      series={[
        { label: 'running', stroke: '#1c7ed6', width: 1.5 },
        { label: 'waiting', stroke: '#f08c00', width: 1.5 },
        { label: 'preemptions so far', stroke: '#e64980', width: 1.5, dash: [4, 3] },
        { label: 'KV cache %', stroke: '#2f9e44', width: 1.5, scale: 'pct' },
      ]}
    />
  );
}

/** What the server's own metrics said while the run measured; nothing when the endpoint has no metrics URL. */
export function ServerMetricsPanel({
  runId,
  diagnostics,
}: {
  runId: string;
  diagnostics: Diagnostics | null;
}) {
  const metrics = useApi(
    (signal) => get('/runs/{id}/server-metrics', { path: { id: runId }, signal }),
    [runId],
  );
  if (!diagnostics) return null;
  return (
    <section class="server-metrics">
      <h2>The server's own metrics</h2>
      {diagnostics.error ? <p class="flag">{diagnostics.error}</p> : null}
      <div class="figures">
        {figures(diagnostics).map(([label, value]) => (
          <div class="figure" key={label}>
            <span class="label">{label}</span>
            <span class="value">{value}</span>
          </div>
        ))}
      </div>
      <Show loaded={metrics} what="the scraped series">
        {(loaded) => (loaded.offsetsMs.length > 1 ? <ServerChart metrics={loaded} /> : null)}
      </Show>
      <p class="hint">
        {diagnostics.scrapes} scrapes of the endpoint's metrics URL ({diagnostics.failedScrapes} failed).
        Gauges are averaged over the scrapes inside the measured window; counters count from the scrape before
        the run to the one after it; the server's percentiles are interpolated in its histogram buckets.
      </p>
    </section>
  );
}
