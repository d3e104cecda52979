import { hostname } from 'node:os';
import { z } from 'zod';
import { WORKER_ROLES, type WorkerRole } from '@teapot/contracts';
import { listenHost, parseEnv, port, sharedEnvShape, type EnvSource } from './env';
import { otlpEnvShape } from './otlp';
import { wholeNumber } from './variables';
import { webhookEnvShape } from './webhooks';

/**
 * Which queues and chores this process runs: `all`, or a comma-separated list of WORKER_ROLES
 * (e.g. `runs` for a process that only measures, `schedule,retention` for the rest).
 */
const workerQueues = z
  .string()
  .default('all')
  .transform((text, ctx): WorkerRole[] => {
    const names = text
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (names.length === 1 && names[0] === 'all') return [...WORKER_ROLES];
    const unknown = names.filter((name) => !(WORKER_ROLES as readonly string[]).includes(name));
    if (names.length === 0 || unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${unknown.length > 0 ? `unknown ${unknown.join(', ')}; ` : ''}must be all or a comma-separated list of ${WORKER_ROLES.join(', ')}`,
      });
      return z.NEVER;
    }
    return [...new Set(names as WorkerRole[])];
  });

const HOUR_MS = 3_600_000;

export const workerEnvSchema = z.object({
  ...sharedEnvShape,
  ...webhookEnvShape,
  ...otlpEnvShape,
  /** Names this process in runs.worker_id and in locks; unique per process. */
  WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.@-]{1,100}$/, 'must be 1-100 characters of letters, digits, _ . @ -')
    .default(() => `${hostname()}-${process.pid}`),
  /** Runs measured at once by this process (each on a different endpoint). */
  WORKER_CONCURRENCY: wholeNumber(1, 64, 1),
  /** BullMQ job lock: a worker that stops renewing it for this long is presumed dead. */
  WORKER_LOCK_DURATION_MS: wholeNumber(1_000, HOUR_MS, 30_000),
  /** How often this process looks for jobs whose worker died. */
  WORKER_STALLED_INTERVAL_MS: wholeNumber(500, HOUR_MS, 15_000),
  /** Per-endpoint lock lifetime; renewed every third of it while a run is measuring. */
  ENDPOINT_LOCK_TTL_MS: wholeNumber(1_000, HOUR_MS, 30_000),
  /** When an endpoint is busy, try the run again after this long. */
  ENDPOINT_BUSY_RETRY_MS: wholeNumber(100, HOUR_MS, 5_000),
  /** How often a deployment's verification checks whether its runs are done. */
  DEPLOYMENT_POLL_MS: wholeNumber(100, HOUR_MS, 5_000),
  /** A run that has not started this long after it was queued (manual runs) is aborted. */
  RUN_MAX_WAIT_MS: wholeNumber(1_000, 7 * 24 * HOUR_MS, HOUR_MS),
  /**
   * A run still measuring after this many times its profile's usual duration (the median of its
   * last measured runs) is ended early as an endpoint fault, so one endpoint cannot hold a slot.
   */
  RUN_BUDGET_FACTOR: wholeNumber(2, 1_000, 5),
  /** The least time budget a run gets, whatever its profile's usual duration. */
  RUN_BUDGET_FLOOR_MS: wholeNumber(1_000, 24 * HOUR_MS, 60_000),
  /** While a run measures, its endpoint's metrics URL (if any) is scraped this often. */
  SERVER_METRICS_INTERVAL_MS: wholeNumber(100, 60_000, 1_000),
  /** One metrics scrape (connect, head, body) must end within this, or it counts as failed. */
  SERVER_METRICS_TIMEOUT_MS: wholeNumber(50, 60_000, 2_000),
  /** A metrics body over this many bytes (counted while it streams) fails its scrape. */
  SERVER_METRICS_MAX_BYTES: wholeNumber(1_024, 64 * 1024 * 1024, 4 * 1024 * 1024),
  /** How long to keep retrying the write of a finished run while the database is down. */
  PERSIST_RETRY_MAX_MS: wholeNumber(0, 24 * HOUR_MS, 15 * 60_000),
  /** On SIGTERM, a running benchmark may finish within this; after it, it is aborted and stored. */
  SHUTDOWN_GRACE_MS: wholeNumber(0, HOUR_MS, 10_000),
  WORKER_QUEUES: workerQueues,
  SCHEDULER_TICK_MS: wholeNumber(50, 60_000, 1_000),
  /** Stale runs (running without a job, queued without a job) are repaired this often. */
  REAPER_INTERVAL_MS: wholeNumber(1_000, HOUR_MS, 30_000),
  /**
   * How often unfinished sweeps with nothing measuring are looked for, and how long one must have been
   * idle before its next step is queued again (its advance job was lost).
   */
  SWEEP_SWEEPER_INTERVAL_MS: wholeNumber(100, HOUR_MS, 5_000),
  RETENTION_RAW_DAYS: wholeNumber(1, 36_500, 30),
  /** Webhook events older than this go with their deliveries and attempts (never one still pending). */
  RETENTION_WEBHOOK_DAYS: wholeNumber(1, 36_500, 30),
  /** When to drop old raw timings (cron, UTC); one worker does it per slot. */
  RETENTION_CRON: z.string().min(9, 'must be a cron expression, e.g. "17 3 * * *"').default('17 3 * * *'),
  /** Prometheus `/metrics` listener; unset means none. */
  WORKER_METRICS_PORT: port.unwrap().optional(),
  /** Where `/metrics` binds; it has no authentication, so loopback unless opened. */
  WORKER_METRICS_HOST: listenHost,
});
export type WorkerEnv = z.output<typeof workerEnvSchema>;

export function loadWorkerEnv(env: EnvSource = process.env): WorkerEnv {
  return parseEnv(workerEnvSchema, env, 'worker');
}
