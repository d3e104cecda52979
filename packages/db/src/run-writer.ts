import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  HEADLINES,
  HISTOGRAM_METRICS,
  METRICS,
  headlineFigures,
  type HeadlineFigures,
  type ClientDiagnostics,
  type HistogramMetric,
} from '@teapot/contracts';
import { clientDiagnostics, requestMetrics, type RequestRecord, type RunResult } from '@teapot/measure';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { RunErrorClass, RunStatus, RunTrigger } from './generated/prisma/enums';
import { recordRunFailed } from './run-events';
import { LatencyHistogram } from '@teapot/stats';
import { BinaryCopyEncoder } from './pg-binary-copy';
import {
  checkInteger,
  type ColumnValue,
  packLittleEndian,
  REQUEST_COLUMNS,
  storableText,
} from './request-codec';
import { refreshRunRollups } from './rollups';
import { writeServerMetrics, type ServerMetricsRecord } from './server-samples';
import { poolOf, type RunStore } from './run-store';

const INT4_MAX = 2_147_483_647;

/** Where a run is rolled up: its endpoint and the hour it started in. */
interface RunPlace {
  endpoint_id: string;
  started_at: Date | null;
}

export interface PersistRunOptions {
  /** The serving configuration that was live during the run (left as it is when omitted). */
  configId?: string | null;
  /** When the run finished (default: now). */
  finishedAt?: Date;
  /** Why the run did not complete, for failed and aborted runs (default: derived). */
  error?: string | null;
  /** The class of that cause (default: `endpoint` when requests failed, `stopped` when aborted). */
  errorClass?: RunErrorClass | null;
  /**
   * Write only while `runs.attempts` equals this: when a newer attempt took the run over, nothing is
   * written and `written` is false. The check and the write are one transaction (no race).
   */
  attempt?: number;
  /**
   * A sweep point's figures (runs.sweep_point), written in the same transaction as the result; left
   * as they are when omitted.
   */
  sweepPoint?: object;
  /** The server's metrics scraped while the run measured (runs.server_diagnostics, run_server_samples). */
  serverMetrics?: ServerMetricsRecord;
}

/**
 * How a run's requests are written: binary COPY, or one INSERT of unnested arrays (kept only as the
 * storage bench's baseline, through `@teapot/db/baselines`, not the package's public index).
 */
export type RequestWriter = 'copy' | 'unnest';

export interface PersistedRun {
  /** False only when `attempt` was given and a newer attempt owns the run. */
  written: boolean;
  status: RunStatus;
  requests: number;
}

/** succeeded; partial when some measured requests failed; failed when all did (or none ran); aborted. */
export function runStatusOf(result: RunResult): RunStatus {
  if (result.aborted) return 'aborted';
  const measured = result.requests.filter((r) => !r.warmup);
  const failed = measured.filter((r) => r.outcome === 'error').length;
  if (measured.length === 0 || failed === measured.length) return 'failed';
  return failed > 0 ? 'partial' : 'succeeded';
}

function derivedErrorClass(status: RunStatus): RunErrorClass | null {
  if (status === 'aborted') return 'stopped';
  return status === 'failed' || status === 'partial' ? 'endpoint' : null;
}

function derivedError(status: RunStatus, result: RunResult): string | null {
  if (status === 'aborted') return 'aborted before it finished';
  if (status !== 'failed') return null;
  const measured = result.requests.filter((r) => !r.warmup);
  if (measured.length === 0) return 'no measured requests';
  const classes = Object.entries(result.summary.errorsByClass).map(([kind, n]) => `${kind} x${n}`);
  return `all ${measured.length} requests failed (${classes.join(', ')})`;
}

/**
 * Writes a finished run in ONE transaction: the run row (status, summary, headline figures, client
 * health, anchors), every request with its packed chunk arrays in bulk, the run's histograms, and
 * the rollups of its hour and day recomputed (packages/db/src/rollups.ts).
 * Re-persisting the same run replaces what an earlier attempt wrote, so a retried write never duplicates.
 */
export function persistRunResult(
  db: RunStore,
  runId: string,
  result: RunResult,
  options: PersistRunOptions = {},
): Promise<PersistedRun> {
  return writeRunResult(db, runId, result, options, 'copy');
}

export async function writeRunResult(
  db: RunStore,
  runId: string,
  result: RunResult,
  options: PersistRunOptions,
  requestWriter: RequestWriter,
): Promise<PersistedRun> {
  const status = runStatusOf(result);
  const histograms = buildHistograms(result.requests);
  const client = await poolOf(db).connect();
  try {
    // Before the transaction: the run's row stays unlocked while a million tokens are read.
    const diagnostics = await clientDiagnosticsOf(client, runId, result);
    await client.query('BEGIN');
    const before = await client.query<{ status: RunStatus } & RunPlace>(
      'SELECT status, endpoint_id, started_at FROM runs WHERE id = $1 FOR UPDATE',
      [runId],
    );
    const after = await updateRun(client, runRowUpdate(runId, result, status, options, diagnostics));
    if (!after) {
      await client.query('ROLLBACK');
      client.release();
      return { written: false, status, requests: 0 };
    }
    await client.query('DELETE FROM run_requests WHERE run_id = $1', [runId]);
    await client.query('DELETE FROM run_histograms WHERE run_id = $1', [runId]);
    if (requestWriter === 'unnest') await insertRequestsUnnest(client, runId, result.requests);
    else await copyRequests(client, runId, result.requests);
    await insertHistograms(client, runId, histograms);
    await writeServerMetrics(client, runId, options.serverMetrics);
    if (status === 'failed' && before.rows[0]?.status !== 'failed')
      await announceFailure(client, runId, result);
    // The hour the run left (if a rewrite moved it) and the hour it is in now.
    await refreshRunRollups(
      client,
      [...before.rows, after].map((place) => ({
        endpointId: place.endpoint_id,
        startedAt: place.started_at,
      })),
    );
    await client.query('COMMIT');
  } catch (err) {
    // Released with its error, the connection is closed, not pooled, and Postgres rolls the
    // transaction back. No ROLLBACK is sent: after a query timeout the connection may still be
    // waiting for the answer to the query that timed out, and a ROLLBACK would wait as long again.
    client.release(err as Error);
    throw err;
  }
  client.release();
  return { written: true, status, requests: result.requests.length };
}

/** What the run writer sets on a run's row: every parameter of RUN_UPDATE_SQL, by name. */
interface RunRowUpdate {
  runId: string;
  status: RunStatus;
  finishedAt: Date;
  error: string | null;
  wallAnchor: Date;
  monotonicAnchorNs: string;
  durationUs: number;
  /** JSON text, as are errorCounts and clientHealth. */
  summary: string;
  requestsSucceeded: number;
  requestsFailed: number;
  requestsIncomplete: number;
  errorCounts: string;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  clientSaturated: boolean;
  clientHealth: string;
  streamOptionsRequested: boolean;
  streamOptionsRejected: boolean;
  /** False leaves config_id as it is. */
  setConfig: boolean;
  configId: string | null;
  /** Write only while runs.attempts equals this (null: whatever it is). */
  attempt: number | null;
  transport: RunResult['transport'];
  measureVersion: string;
  errorClass: RunErrorClass | null;
  /** JSON text; null leaves sweep_point as it is. */
  sweepPoint: string | null;
  /** JSON text of the run's ClientDiagnostics; null when it has none. */
  clientDiagnostics: string | null;
  /** The headline columns (HEADLINES), after the named parameters. */
  figures: HeadlineFigures;
}

/** The parameters' order ($1, $2, ...); the headline figures follow, in HEADLINES order. */
const RUN_UPDATE_PARAMS = [
  'runId',
  'status',
  'finishedAt',
  'error',
  'wallAnchor',
  'monotonicAnchorNs',
  'durationUs',
  'summary',
  'requestsSucceeded',
  'requestsFailed',
  'requestsIncomplete',
  'errorCounts',
  'eventLoopDelayP99Ms',
  'eventLoopDelayMaxMs',
  'clientSaturated',
  'clientHealth',
  'streamOptionsRequested',
  'streamOptionsRejected',
  'setConfig',
  'configId',
  'attempt',
  'transport',
  'measureVersion',
  'errorClass',
  'sweepPoint',
  'clientDiagnostics',
] as const satisfies ReadonlyArray<Exclude<keyof RunRowUpdate, 'figures'>>;

const param = (name: (typeof RUN_UPDATE_PARAMS)[number]) => `$${RUN_UPDATE_PARAMS.indexOf(name) + 1}`;
const headlineSet = HEADLINES.map((h, i) => `${h.column} = $${RUN_UPDATE_PARAMS.length + 1 + i}`).join(', ');

const RUN_UPDATE_SQL = `UPDATE runs SET
       status = ${param('status')}::"RunStatus", finished_at = ${param('finishedAt')}, error = ${param('error')},
       started_at = COALESCE(started_at, ${param('wallAnchor')}), wall_anchor = ${param('wallAnchor')}, monotonic_anchor_ns = ${param('monotonicAnchorNs')}, duration_us = ${param('durationUs')},
       summary = ${param('summary')}, requests_succeeded = ${param('requestsSucceeded')}, requests_failed = ${param('requestsFailed')}, requests_incomplete = ${param('requestsIncomplete')}, error_counts = ${param('errorCounts')},
       event_loop_delay_p99_ms = ${param('eventLoopDelayP99Ms')}, event_loop_delay_max_ms = ${param('eventLoopDelayMaxMs')}, client_saturated = ${param('clientSaturated')}, client_health = ${param('clientHealth')},
       stream_options_requested = ${param('streamOptionsRequested')}, stream_options_rejected = ${param('streamOptionsRejected')},
       config_id = CASE WHEN ${param('setConfig')} THEN ${param('configId')}::uuid ELSE config_id END,
       transport = ${param('transport')}::"MeasureTransport", measure_version = ${param('measureVersion')}, error_class = ${param('errorClass')}::"RunErrorClass",
       sweep_point = COALESCE(${param('sweepPoint')}::jsonb, sweep_point), client_diagnostics = ${param('clientDiagnostics')}::jsonb,
       ${headlineSet}
     WHERE id = ${param('runId')} AND (${param('attempt')}::int IS NULL OR attempts = ${param('attempt')})
     RETURNING endpoint_id, started_at`;

function runRowUpdate(
  runId: string,
  result: RunResult,
  status: RunStatus,
  options: PersistRunOptions,
  diagnostics: ClientDiagnostics | null,
): RunRowUpdate {
  const s = result.summary;
  return {
    runId,
    status,
    finishedAt: options.finishedAt ?? new Date(),
    error: options.error !== undefined ? options.error : derivedError(status, result),
    wallAnchor: new Date(result.wallAnchorMs),
    monotonicAnchorNs: result.monotonicAnchorNs,
    durationUs: Math.round(result.durationUs),
    summary: JSON.stringify(s),
    requestsSucceeded: s.requests.succeeded,
    requestsFailed: s.requests.failed,
    requestsIncomplete: s.requests.incomplete,
    errorCounts: JSON.stringify(s.errorsByClass),
    eventLoopDelayP99Ms: result.client.eventLoopDelayMs.p99,
    eventLoopDelayMaxMs: result.client.eventLoopDelayMs.max,
    clientSaturated: result.client.saturated,
    clientHealth: JSON.stringify(result.client),
    streamOptionsRequested: result.streamOptions.requested,
    streamOptionsRejected: result.streamOptions.rejectedByServer,
    setConfig: options.configId !== undefined,
    configId: options.configId ?? null,
    attempt: options.attempt ?? null,
    transport: result.transport,
    measureVersion: result.measureVersion,
    errorClass: options.errorClass !== undefined ? options.errorClass : derivedErrorClass(status),
    sweepPoint: options.sweepPoint === undefined ? null : JSON.stringify(options.sweepPoint),
    clientDiagnostics: diagnostics === null ? null : JSON.stringify(diagnostics),
    figures: headlineFigures(s),
  };
}

/** The run's client diagnostics, their deadlines at the TPOT SLO of the snapshot it was measured from. */
async function clientDiagnosticsOf(
  client: PoolClient,
  runId: string,
  result: RunResult,
): Promise<ClientDiagnostics | null> {
  const { rows } = await client.query<{ tpot_slo_ms: number | null }>(
    `SELECT CASE WHEN jsonb_typeof(profile_snapshot->'slo'->'tpotMs') = 'number'
                 THEN (profile_snapshot->'slo'->>'tpotMs')::float8 END AS tpot_slo_ms
       FROM runs WHERE id = $1`,
    [runId],
  );
  const tpotSloMs = rows[0]?.tpot_slo_ms ?? null;
  const slo = tpotSloMs !== null && Number.isFinite(tpotSloMs) && tpotSloMs > 0 ? { tpotSloMs } : {};
  return clientDiagnostics(result.requests, result.summary, slo);
}

async function updateRun(client: PoolClient, row: RunRowUpdate): Promise<RunPlace | null> {
  const updated = await client.query<RunPlace>(RUN_UPDATE_SQL, [
    ...RUN_UPDATE_PARAMS.map((name) => row[name]),
    ...HEADLINES.map((h) => row.figures[h.field]),
  ]);
  if (updated.rowCount === 1) return updated.rows[0];
  const exists = await client.query('SELECT 1 FROM runs WHERE id = $1', [row.runId]);
  if (exists.rowCount === 0) {
    throw new Error(`run ${row.runId} does not exist: create the run row before persisting its result`);
  }
  return null;
}

/** `run.failed` for subscribers, in the transaction that stores the failed run (the outbox). */
async function announceFailure(client: PoolClient, runId: string, result: RunResult): Promise<void> {
  const { rows } = await client.query<{
    endpoint_id: string;
    profile_id: string | null;
    trigger: RunTrigger;
    error: string | null;
    error_class: RunErrorClass | null;
    finished_at: Date;
  }>('SELECT endpoint_id, profile_id, trigger, error, error_class, finished_at FROM runs WHERE id = $1', [
    runId,
  ]);
  const run = rows[0];
  await recordRunFailed(client, {
    id: runId,
    endpointId: run.endpoint_id,
    profileId: run.profile_id,
    trigger: run.trigger,
    error: run.error,
    errorClass: run.error_class,
    finishedAt: run.finished_at,
    requests: { succeeded: result.summary.requests.succeeded, failed: result.summary.requests.failed },
  });
}

/** The request's values in REQUEST_COLUMNS order, validated and converted for storage. */
function requestValues(r: RequestRecord): ColumnValue[] {
  const metrics = requestMetrics(r);
  const n = r.chunkOffsetsUs.length;
  if (r.chunkTokens.length !== n || r.chunkKinds.length !== n) {
    throw new RangeError(
      `request ${r.index}: chunk arrays differ in length (${n}, ${r.chunkTokens.length}, ${r.chunkKinds.length})`,
    );
  }
  return [
    checkInteger(r.index, 'index', r.index, INT4_MAX),
    r.warmup,
    r.outcome,
    r.error?.kind ?? null,
    storableText(r.error?.message),
    r.error?.status ?? null,
    r.error?.retryAfterS ?? null,
    checkInteger(r.scheduledUs, 'scheduledUs', r.index),
    checkInteger(r.startUs, 'startUs', r.index),
    r.ttfbUs === null ? null : checkInteger(r.ttfbUs, 'ttfbUs', r.index),
    metrics.ttftUs,
    metrics.e2eUs,
    checkInteger(r.outputTokens, 'outputTokens', r.index, INT4_MAX),
    r.promptTokens,
    r.targetPromptTokens,
    r.tokenSource,
    storableText(r.responseId),
    storableText(r.finishReason),
    n,
    packLittleEndian(r.chunkOffsetsUs),
    packLittleEndian(r.chunkTokens),
    packLittleEndian(r.chunkKinds),
    r.sessionId === null ? null : checkInteger(r.sessionId, 'sessionId', r.index, INT4_MAX),
    r.turnIndex === null ? null : checkInteger(r.turnIndex, 'turnIndex', r.index, INT4_MAX),
  ];
}

const COLUMN_LIST = `run_id, ${REQUEST_COLUMNS.map(([name]) => name).join(', ')}`;

function* copyChunks(runId: string, requests: RequestRecord[]): Generator<Buffer> {
  const encoder = new BinaryCopyEncoder();
  for (const r of requests) {
    const values = requestValues(r);
    encoder.tuple(REQUEST_COLUMNS.length + 1);
    encoder.uuid(runId);
    for (let i = 0; i < values.length; i++) encoder.value(REQUEST_COLUMNS[i][1], values[i]);
    if (encoder.full) yield encoder.take();
  }
  yield encoder.finish();
}

async function copyRequests(client: PoolClient, runId: string, requests: RequestRecord[]): Promise<void> {
  const sql = `COPY run_requests (${COLUMN_LIST}) FROM STDIN (FORMAT binary)`;
  await pipeline(Readable.from(copyChunks(runId, requests)), client.query(copyFrom(sql)));
}

/** The alternative to COPY: one INSERT ... SELECT FROM unnest() of one array parameter per column. */
async function insertRequestsUnnest(
  client: PoolClient,
  runId: string,
  requests: RequestRecord[],
): Promise<void> {
  const columns: ColumnValue[][] = REQUEST_COLUMNS.map(() => []);
  for (const r of requests) requestValues(r).forEach((value, i) => columns[i].push(value));
  const params = REQUEST_COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ');
  await client.query(`INSERT INTO run_requests (${COLUMN_LIST}) SELECT $1::uuid, * FROM unnest(${params})`, [
    runId,
    ...columns,
  ]);
}

/** Per run: ITL token-weighted; TTFT, TPOT and E2E request-weighted; successful measured requests only. */
export function buildHistograms(requests: RequestRecord[]): Record<HistogramMetric, LatencyHistogram> {
  const histograms = Object.fromEntries(
    HISTOGRAM_METRICS.map((metric) => [metric, new LatencyHistogram()]),
  ) as Record<HistogramMetric, LatencyHistogram>;
  for (const r of requests) {
    if (r.warmup || r.outcome !== 'ok') continue;
    const m = requestMetrics(r);
    for (const metric of HISTOGRAM_METRICS) {
      const samples = m[METRICS[metric].requestKey];
      if (samples === null) continue;
      if (typeof samples === 'number') histograms[metric].record(samples);
      else histograms[metric].recordAll(samples);
    }
  }
  return histograms;
}

async function insertHistograms(
  client: PoolClient,
  runId: string,
  histograms: Record<HistogramMetric, LatencyHistogram>,
): Promise<void> {
  await client.query(
    `INSERT INTO run_histograms (run_id, metric, count, encoded)
     SELECT $1::uuid, * FROM unnest($2::text[], $3::int8[], $4::bytea[])`,
    [
      runId,
      HISTOGRAM_METRICS,
      HISTOGRAM_METRICS.map((m) => histograms[m].count),
      HISTOGRAM_METRICS.map((m) => histograms[m].encode()),
    ],
  );
}
