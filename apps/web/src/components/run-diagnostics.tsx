import type { Schemas } from '../api/client';
import { diagnosticRows, type DiagnosticRow } from '../shape/diagnostics';

function Figures({ rows }: { rows: DiagnosticRow[] }) {
  return (
    <div class="figures">
      {rows.map((row) => (
        <div class="figure" key={row.metric} title={`trend metric ${row.metric}`}>
          <span class="label">{row.label}</span>
          <span class="value">{row.value}</span>
        </div>
      ))}
    </div>
  );
}

/**
 * Why the run was as fast as it was, from its per-token record; what the server said is in
 * ServerMetricsPanel, beside its series.
 */
export function RunDiagnostics({ run }: { run: Schemas['RunDetailDto'] }) {
  const client = diagnosticRows('client', run.clientDiagnostics);
  const source = run.clientDiagnostics?.deadlineTpotSource;
  return (
    <section class="diagnostics">
      <h2>Diagnostics from the per-token record</h2>
      {client.length > 0 ? (
        <Figures rows={client} />
      ) : (
        <p>None: the run has no successful request with tokens.</p>
      )}
      {source ? (
        <p class="hint">
          Late tokens are judged against{' '}
          {source === 'slo' ? "the profile's TPOT SLO" : "the run's median TPOT"}; ITL during prefills counts
          the gaps that overlapped another request's prefill.
        </p>
      ) : null}
      {run.serverDiagnostics ? null : (
        <p class="hint">The server's own metrics: not scraped, the endpoint names no metrics URL.</p>
      )}
    </section>
  );
}
