import type { PoolClient } from 'pg';

/** What a run's metrics scrapes left: the diagnostics and the series they came from (@teapot/server-metrics). */
export interface ServerMetricsRecord {
  /** ServerDiagnostics (@teapot/contracts), stored in runs.server_diagnostics. */
  diagnostics: object;
  /** Each successful scrape's time, ms on the run's monotonic clock; empty when none succeeded. */
  offsetsMs: number[];
  /** ServerSeries less its offsets; no row is written when no scrape succeeded. */
  series: object;
}

/**
 * Writes a run's server diagnostics and samples inside the run writer's transaction, replacing what
 * an earlier attempt wrote. A run measured without a metrics URL has neither.
 */
export async function writeServerMetrics(
  client: PoolClient,
  runId: string,
  record: ServerMetricsRecord | undefined,
): Promise<void> {
  await client.query('DELETE FROM run_server_samples WHERE run_id = $1', [runId]);
  await client.query('UPDATE runs SET server_diagnostics = $2::jsonb WHERE id = $1', [
    runId,
    record ? JSON.stringify(record.diagnostics) : null,
  ]);
  if (!record || record.offsetsMs.length === 0) return;
  await client.query(
    'INSERT INTO run_server_samples (run_id, offsets_ms, series) VALUES ($1, $2, $3::jsonb)',
    [runId, record.offsetsMs, JSON.stringify(record.series)],
  );
}
