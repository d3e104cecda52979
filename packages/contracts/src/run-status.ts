/** Every status a run can have, in the order a run moves through them (Prisma's RunStatus enum). */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'partial', 'failed', 'aborted'] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** A run in one of these is not over yet: waiting for a worker, or being measured (or taken over). */
export const UNFINISHED_RUN_STATUSES = ['queued', 'running'] as const satisfies readonly RunStatusName[];
export type UnfinishedRunStatus = (typeof UNFINISHED_RUN_STATUSES)[number];

/** A run in one of these is over: nothing changes it again. */
export const FINAL_RUN_STATUSES = [
  'succeeded',
  'partial',
  'failed',
  'aborted',
] as const satisfies readonly RunStatusName[];
export type FinalRunStatus = (typeof FINAL_RUN_STATUSES)[number];

const FINAL: ReadonlySet<string> = new Set(FINAL_RUN_STATUSES);

export function isFinalRunStatus(status: string): status is FinalRunStatus {
  return FINAL.has(status);
}

/**
 * A run's figures count in trends, comparisons and rollups once it was measured: succeeded, partial,
 * or failed with a summary (failed runs carry error rates). Aborted runs never count.
 */
export const MEASURED_RUN_STATUSES = [
  'succeeded',
  'partial',
  'failed',
] as const satisfies readonly RunStatusName[];

/**
 * Why a run did not succeed, in classes a reader can act on (runs.error_class; `error` says the rest):
 * - `endpoint`: the run measured and some or all of its requests failed (`errorCounts` names the
 *   request error classes, including `client_config` for what the client refused to send);
 * - `worker_lost`: the worker process measuring it died (killed, out of memory, machine lost), as
 *   often as the run's job allows or with nothing left to take the run over: nothing about the endpoint;
 * - `config`: what the run is configured with cannot be used where it runs: the endpoint's stored URL is
 *   refused by the worker's URL policy, its auth headers cannot be read with the worker's secret key, the
 *   profile's tokenizer file is missing, outside TEAPOT_TOKENIZER_DIR or not a tokenizer. Nothing was
 *   sent; an operator fixes the endpoint, the profile or the worker's settings, not the server;
 * - `stopped`: teapot stopped or skipped it on purpose (a worker shutting down, a deadline passed
 *   before it could start, an archived endpoint, a launcher exiting);
 * - `internal`: teapot could not prepare, queue, measure or store it (the error says what).
 */
export const RUN_ERROR_CLASSES = ['endpoint', 'config', 'worker_lost', 'stopped', 'internal'] as const;
export type RunErrorClass = (typeof RUN_ERROR_CLASSES)[number];

/**
 * How the error of a skipped run begins: `aborted`, class `stopped`, a slot (or manual run) that was
 * never measured because it could not start in time or was never queued in time; the rest says why.
 */
export const SKIPPED_RUN_ERROR_PREFIX = 'skipped: ';
