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
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const pool = poolOf(db);
  const result: DropRawTimingsResult = { requests: 0, batches: 0 };
  for (;;) {
    options.signal?.throwIfAborted();
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
    if (updated === 0) return result;
    result.requests += updated;
    result.batches += 1;
    if (updated < batchSize) return result;
    if (options.pauseMs) await sleep(options.pauseMs);
  }
}
