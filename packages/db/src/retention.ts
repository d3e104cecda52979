import { setTimeout as sleep } from 'node:timers/promises';
import { poolOf, type RunStore } from './run-store';

export interface DropRawTimingsOptions {
  /** Runs that finished before this instant lose their raw chunk arrays. */
  olderThan: Date;
  /** Requests per UPDATE (default 500): each batch is its own short transaction. */
  batchSize?: number;
  /** Pause between batches, to leave room for the live load (default 0). */
  pauseMs?: number;
  signal?: AbortSignal;
}

export interface DropRawTimingsResult {
  requests: number;
  batches: number;
  /** Runs whose scraped server samples (run_server_samples) went with their raw timings. */
  serverSamples: number;
}

/**
 * Retention: nulls the raw chunk arrays of requests of runs finished before `olderThan` and stamps
 * raw_dropped_at, in bounded batches (never one table-wide statement). Summaries, per-request
 * figures and histograms stay. Safe to run from several workers at once (SKIP LOCKED).
 */
export async function dropRawTimings(
  db: RunStore,
  options: DropRawTimingsOptions,
): Promise<DropRawTimingsResult> {
  const pool = poolOf(db);
  const result: DropRawTimingsResult = { requests: 0, batches: 0, serverSamples: 0 };
  await inBatches(options, async (batchSize) => {
    const { rowCount } = await pool.query(
      `WITH batch AS (
         SELECT rr.run_id, rr.index FROM runs r
           JOIN run_requests rr ON rr.run_id = r.id AND rr.raw_dropped_at IS NULL
          WHERE r.finished_at < $1
          LIMIT $2
            FOR UPDATE OF rr SKIP LOCKED
       )
       UPDATE run_requests t
          SET chunk_offsets_us = NULL, chunk_tokens = NULL, chunk_kinds = NULL, raw_dropped_at = now()
         FROM batch WHERE t.run_id = batch.run_id AND t.index = batch.index`,
      [options.olderThan, batchSize],
    );
    const updated = rowCount ?? 0;
    if (updated > 0) {
      result.requests += updated;
      result.batches += 1;
    }
    return updated;
  });
  // The scraped server series are raw data of the same age; the diagnostics derived from them stay on the run.
  await inBatches(options, async (batchSize) => {
    const { rowCount } = await pool.query(
      `DELETE FROM run_server_samples t USING (
         SELECT s.run_id FROM run_server_samples s JOIN runs r ON r.id = s.run_id
          WHERE r.finished_at < $1 LIMIT $2 FOR UPDATE OF s SKIP LOCKED
       ) batch WHERE t.run_id = batch.run_id`,
      [options.olderThan, batchSize],
    );
    result.serverSamples += rowCount ?? 0;
    return rowCount ?? 0;
  });
  return result;
}

export interface DropWebhookHistoryOptions {
  /** Events created before this instant go, with their deliveries and attempts. */
  olderThan: Date;
  /** Events per DELETE (default 500): each batch is its own short transaction. */
  batchSize?: number;
  signal?: AbortSignal;
}

export interface DropWebhookHistoryResult {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Retention of the webhook history: deletes events created before `olderThan` whose deliveries are
 * all final (succeeded, failed or cancelled), with those deliveries and their attempts (the foreign
 * keys cascade), in bounded batches. An event with a delivery still pending stays whatever its age,
 * so retention never takes a message from under a retry. Safe from several workers (SKIP LOCKED).
 */
export async function dropWebhookHistory(
  db: RunStore,
  options: DropWebhookHistoryOptions,
): Promise<DropWebhookHistoryResult> {
  const pool = poolOf(db);
  const result: DropWebhookHistoryResult = { events: 0, deliveries: 0, attempts: 0 };
  await inBatches(options, async (batchSize) => {
    const { rows } = await pool.query<{ events: string; deliveries: string; attempts: string }>(
      `WITH batch AS (
         SELECT e.id FROM webhook_events e
          WHERE e.created_at < $1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
          ORDER BY e.created_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED
       ), counted AS (
         SELECT (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id IN (SELECT id FROM batch)) AS deliveries,
                (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                  WHERE d.event_id IN (SELECT id FROM batch)) AS attempts
       ), deleted AS (
         DELETE FROM webhook_events WHERE id IN (SELECT id FROM batch) RETURNING id
       )
       SELECT (SELECT count(*) FROM deleted) AS events, deliveries, attempts FROM counted`,
      [options.olderThan, batchSize],
    );
    const events = Number(rows[0]?.events ?? 0);
    result.events += events;
    result.deliveries += Number(rows[0]?.deliveries ?? 0);
    result.attempts += Number(rows[0]?.attempts ?? 0);
    return events;
  });
  return result;
}

/**
 * Runs `batch` (one bounded statement, its own short transaction, returning the rows it took) until
 * one comes back short of `batchSize` (default 500), so retention never holds a table-wide lock;
 * `signal` is checked before each batch and `pauseMs` waited between them.
 */
async function inBatches(
  options: { batchSize?: number; pauseMs?: number; signal?: AbortSignal },
  batch: (batchSize: number) => Promise<number>,
): Promise<void> {
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  for (;;) {
    options.signal?.throwIfAborted();
    if ((await batch(batchSize)) < batchSize) return;
    if (options.pauseMs) await sleep(options.pauseMs);
  }
}
