import type { RequestRecord } from '@teapot/measure';
import { LatencyHistogram } from '@teapot/stats';
import { recordFromRow, type RequestRow } from './request-codec';
import { poolOf, queriesOf, type ReadStore, type RunStore } from './run-store';
import type { HistogramMetric } from '@teapot/contracts';

const SELECT_REQUESTS = `SELECT index, warmup, outcome, error_class, error_message, http_status, retry_after_s,
  scheduled_us, start_us, ttfb_us, output_tokens, prompt_tokens, target_prompt_tokens, token_source,
  response_id, finish_reason, chunk_offsets_us, chunk_tokens, chunk_kinds, session_id, turn_index
  FROM run_requests`;

export interface ReadRunRequestsOptions {
  /** Skip this many requests (in index order). */
  offset?: number;
  /** At most this many requests (default: all). */
  limit?: number;
}

/**
 * The run's requests in index order, identical to the RequestRecords that were persisted. Requests
 * whose raw timings retention dropped come back with empty chunk arrays.
 */
export async function readRunRequests(
  db: RunStore,
  runId: string,
  options: ReadRunRequestsOptions = {},
): Promise<RequestRecord[]> {
  const { rows } = await poolOf(db).query<RequestRow>(
    `${SELECT_REQUESTS} WHERE run_id = $1 ORDER BY index OFFSET $2 LIMIT $3`,
    [runId, options.offset ?? 0, options.limit ?? null],
  );
  return rows.map(recordFromRow);
}

export interface StreamRunRequestsOptions {
  /** Requests per batch (default 200: about 1.4 MB of chunk data at 1,000 tokens each). */
  batchSize?: number;
}

/**
 * The run's requests in index order, in batches, for exports (NDJSON, CSV) of runs too large to hold
 * at once. Keyset pagination: each batch is one short query, no transaction or cursor stays open.
 */
export async function* streamRunRequests(
  db: RunStore,
  runId: string,
  options: StreamRunRequestsOptions = {},
): AsyncGenerator<RequestRecord[]> {
  const batchSize = options.batchSize ?? 200;
  const pool = poolOf(db);
  let after = -1;
  for (;;) {
    const { rows } = await pool.query<RequestRow>(
      `${SELECT_REQUESTS} WHERE run_id = $1 AND index > $2 ORDER BY index LIMIT $3`,
      [runId, after, batchSize],
    );
    if (rows.length === 0) return;
    yield rows.map(recordFromRow);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].index;
  }
}

export interface MeasuredRequests {
  /** Per run id: its successful measured (not warm-up) requests whose raw timings are kept, in index order. */
  byRun: Map<string, RequestRecord[]>;
  /** Successful measured requests of these runs whose raw timings retention dropped (left out). */
  rawDropped: number;
}

/**
 * The successful measured requests of several runs, raw, for statistics over requests (e.g. a
 * comparison that resamples requests). Callers bound the runs they ask for.
 */
export async function readMeasuredRequests(db: ReadStore, runIds: string[]): Promise<MeasuredRequests> {
  const pool = queriesOf(db);
  const { rows } = await pool.query<RequestRow & { run_id: string }>(
    `SELECT run_id, ${SELECT_REQUESTS.slice('SELECT '.length)}
      WHERE run_id = ANY($1::uuid[]) AND outcome = 'ok' AND NOT warmup AND raw_dropped_at IS NULL
      ORDER BY run_id, index`,
    [runIds],
  );
  const byRun = new Map<string, RequestRecord[]>(runIds.map((id) => [id, []]));
  for (const row of rows) byRun.get(row.run_id)?.push(recordFromRow(row));
  const dropped = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM run_requests
      WHERE run_id = ANY($1::uuid[]) AND outcome = 'ok' AND NOT warmup AND raw_dropped_at IS NOT NULL`,
    [runIds],
  );
  return { byRun, rawDropped: Number(dropped.rows[0].n) };
}

/** The run's stored histograms by metric (missing metrics: the run was not persisted yet). */
export async function readRunHistograms(
  db: RunStore,
  runIds: string | string[],
): Promise<Partial<Record<HistogramMetric, LatencyHistogram>>> {
  const ids = Array.isArray(runIds) ? runIds : [runIds];
  const { rows } = await poolOf(db).query<{ metric: HistogramMetric; encoded: Buffer }>(
    'SELECT metric, encoded FROM run_histograms WHERE run_id = ANY($1::uuid[])',
    [ids],
  );
  const merged: Partial<Record<HistogramMetric, LatencyHistogram>> = {};
  for (const row of rows) {
    const histogram = LatencyHistogram.decode(row.encoded);
    merged[row.metric] = merged[row.metric]?.merge(histogram) ?? histogram;
  }
  return merged;
}
