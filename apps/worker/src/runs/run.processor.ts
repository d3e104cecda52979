import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { decryptHeaders, type WorkerEnv } from '@teapot/config';
import {
  InvalidSnapshotError,
  isFinalRunStatus,
  JOB_NAMES,
  QUEUE_NAMES,
  type RunJobData,
} from '@teapot/contracts';
import type { ServerMetricsRecord } from '@teapot/db';
import { WORKER_DEFAULTS } from '@teapot/jobs';
import {
  runBenchmarkInThread,
  TokenizerFileError,
  type RunOptions,
  type RunResult,
  type Target,
} from '@teapot/measure';
import { checkUrl, type HostResolver } from '@teapot/webhooks';
import { CLOCK, HOST_RESOLVER, WORKER_ENV, type Clock } from '../env/worker-env';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { OnJob, QueueProcessor, type QueueProcessorHooks } from '../queues/queue-processor';
import { RedisService } from '../redis/redis.service';
import { RunTelemetry } from '../telemetry/run-telemetry';
import { EndpointLease } from './endpoint-lease';
import { endpointLookup } from './endpoint-lookup';
import { runOptionsFromSnapshot } from './profile-snapshot';
import { afterStoreFailure, jobFailureOf, verdictOf } from './run-outcome';
import { retryWhileDatabaseIsAway } from './database-retry';
import { RunRepository, type RunToProcess } from './run-repository';
import { startRunServerMetrics } from './run-server-metrics';
import { sweepPointFigures } from './sweep-point';
import {
  onBusyEndpoint,
  RUN_BUDGET_HISTORY,
  runBudget,
  skippedAtStart,
  startDeadline,
  startDelayMs,
} from './run-timing';

/** What a run job returns (kept on the completed job for a while, for inspection). */
export interface RunJobOutcome {
  runId: string;
  status: string;
  note?: string;
}

interface ActiveRun {
  runId: string;
  attempt: number;
  controller: AbortController;
  reason: string | null;
  /** Ended by its time budget: the endpoint's fault, stored with class `endpoint`. */
  overBudget: boolean;
}

interface Measured {
  attempt: number;
  result: RunResult;
  abortReason: string | null;
  errorClass?: 'endpoint';
  serverMetrics?: ServerMetricsRecord;
}

/**
 * Processes `runs` jobs. Rules, in order:
 * - the run row is the truth: a missing run fails the job without retries; a finished run is left alone;
 * - a run that cannot start before its deadline (a scheduled run: its profile's next slot is due;
 *   other runs: RUN_MAX_WAIT_MS after queueing) ends `aborted` with the reason, so slots never pile up;
 * - one run per endpoint at a time, across all workers (EndpointLease); a busy endpoint defers the
 *   job by ENDPOINT_BUSY_RETRY_MS (moveToDelayed, no attempt spent), until the deadline above;
 * - a run found `running` belonged to a worker that died: this attempt takes over the same row
 *   (attempts + 1) and measures again, so there is never a second run for one job;
 * - endpoint faults are the measurement's classified errors inside a stored run, never a failed job;
 * - a run still measuring after its time budget (runBudget: a multiple of its profile's usual
 *   duration) is ended early and stored aborted, class `endpoint`, so a slow or endless endpoint
 *   gives the measuring slot back to the other endpoints' runs;
 * - the result is written once measured, retried with backoff while the database is away.
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES.runs)
export class RunProcessor implements QueueProcessorHooks {
  private readonly logger = new Logger(RunProcessor.name);
  private readonly active = new Map<string, ActiveRun>();
  private closing = false;
  /** Resolves endpoint hosts at connect time and refuses addresses outside TEAPOT_ENDPOINT_URL_ALLOW. */
  private readonly lookup: Target['lookup'];

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly redis: RedisService,
    private readonly runs: RunRepository,
    private readonly metrics: WorkerMetrics,
    private readonly telemetry: RunTelemetry,
    @Inject(HOST_RESOLVER) private readonly resolveHost: HostResolver,
  ) {
    this.lookup = endpointLookup(env.TEAPOT_ENDPOINT_URL_ALLOW, resolveHost);
  }

  workerOptions() {
    return {
      concurrency: this.env.WORKER_CONCURRENCY,
      lockDuration: this.env.WORKER_LOCK_DURATION_MS,
      stalledInterval: this.env.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: WORKER_DEFAULTS.maxStalledCount,
    };
  }

  onClosing(): void {
    this.closing = true;
  }

  onGraceOver(): void {
    this.abortAll('the worker shut down (SIGTERM) before the run finished');
  }

  /** A measurement that did not wind down after its abort: its run is ended as aborted without results. */
  async onDrainTimeout(): Promise<void> {
    for (const run of this.active.values()) {
      const reason = `${run.reason ?? 'the worker shut down'}; the measurement did not stop, so no results were kept`;
      await this.runs
        .endUnmeasured({ id: run.runId, attempts: run.attempt }, 'aborted', reason, 'stopped')
        .catch(() => false);
    }
  }

  abortAll(reason: string): void {
    for (const run of this.active.values()) {
      run.reason ??= reason;
      run.controller.abort(new Error(reason));
    }
  }

  @OnJob(JOB_NAMES.run)
  async process(job: Job<RunJobData, RunJobOutcome>, token?: string): Promise<RunJobOutcome> {
    const runId = job.data.runId;
    const run = await this.runs.load(runId);
    if (!run) throw new UnrecoverableError(`run ${runId} no longer exists`);
    const outcome = await this.processRun(job, token, run);
    // A point's end (however it ended, also found ended by a retried job) moves its sweep on.
    if (isFinalRunStatus(outcome.status)) await this.advanceSweep(run);
    return outcome;
  }

  private async processRun(
    job: Job<RunJobData, RunJobOutcome>,
    token: string | undefined,
    run: RunToProcess,
  ): Promise<RunJobOutcome> {
    const runId = run.id;
    if (isFinalRunStatus(run.status)) return { runId, status: run.status, note: 'already finished' };
    if (run.endpoint.archivedAt)
      return this.endUnmeasured(run, 'aborted', 'the endpoint was archived', 'stopped');

    const deadlineMs = startDeadline(run, this.env.RUN_MAX_WAIT_MS);
    const tooLate = skippedAtStart(run, deadlineMs, this.clock.now());
    if (tooLate) return this.skip(run, tooLate);
    if (this.closing) return this.defer(job, token, 0);

    const lease = await EndpointLease.acquire(
      this.redis.connection,
      this.redis.key('endpoint-lock', run.endpoint.id),
      `${this.env.WORKER_ID}/${run.id}`,
      this.env.ENDPOINT_LOCK_TTL_MS,
    );
    if (!lease) {
      const busy = onBusyEndpoint(run, deadlineMs, this.clock.now(), this.env.ENDPOINT_BUSY_RETRY_MS);
      if ('skipped' in busy) return this.skip(run, busy.skipped);
      this.metrics.recordBusyDeferral();
      return this.defer(job, token, busy.retryInMs);
    }

    let measured: Measured | RunJobOutcome;
    try {
      measured = await this.measure(run, lease);
    } finally {
      await lease.release();
    }
    if ('status' in measured) return measured;
    const outcome = await this.storeResult(run, measured);
    if (outcome.status !== 'unchanged') await this.queueAnalysis(run);
    return outcome;
  }

  /**
   * Queues the sweep's next step after one of its points ended. A failure to queue is logged: the
   * sweep sweeper queues the step of a sweep idle with its last point ended.
   */
  private async advanceSweep(run: Pick<RunToProcess, 'id' | 'sweepId' | 'sweepIndex'>): Promise<void> {
    if (run.sweepId === null || run.sweepIndex === null) return;
    try {
      await this.redis.sweeps.enqueueAdvance(run.sweepId, run.sweepIndex + 1);
    } catch (error) {
      this.logger.warn(`run ${run.id}: the next step of sweep ${run.sweepId} not queued: ${message(error)}`);
    }
  }

  /**
   * The change points of the run's series are recomputed off this process's event loop, on the
   * `change-points` queue. The run is stored whatever happens here: a failure to queue is logged, and the
   * next run of the series queues the recomputation again.
   */
  private async queueAnalysis(run: RunToProcess): Promise<void> {
    // A sweep's points differ in load, so they are no series of one profile (capacity trends are the sweep's).
    if (!run.profileId || run.sweepId !== null) return;
    try {
      await this.redis.changePoints.enqueueChangePoints({
        endpointId: run.endpoint.id,
        profileId: run.profileId,
      });
    } catch (error) {
      this.logger.warn(`run ${run.id}: change points not queued: ${message(error)}`);
    }
  }

  private async measure(run: RunToProcess, lease: EndpointLease): Promise<Measured | RunJobOutcome> {
    const attempt = await this.runs.claim(run, this.env.WORKER_ID);
    if (attempt === null)
      return { runId: run.id, status: 'unchanged', note: 'another worker took the run first' };
    if (run.status === 'running') {
      this.logger.warn(
        `run ${run.id}: worker ${run.workerId} stopped mid-run; measuring it again (attempt ${attempt})`,
      );
    }
    this.recordStartDelay(run);

    let options: RunOptions;
    try {
      options = await runOptionsFromSnapshot(run.profileSnapshot, this.target(run), {
        upload: (sha256) => this.runs.assetBytes(sha256),
        tokenizer: (sha256) => this.runs.tokenizers.source(sha256),
        tokenizerDir: this.env.TEAPOT_TOKENIZER_DIR,
      });
    } catch (error) {
      if (error instanceof EndpointConfigError)
        return this.endUnmeasured({ ...run, attempts: attempt }, 'failed', error.message, 'config');
      const reason =
        error instanceof InvalidSnapshotError ? error.message : `cannot prepare the run: ${message(error)}`;
      const errorClass = error instanceof TokenizerFileError ? 'config' : 'internal';
      return this.endUnmeasured({ ...run, attempts: attempt }, 'failed', reason, errorClass);
    }

    const budget = await this.budgetOf(run);
    const active: ActiveRun = {
      runId: run.id,
      attempt,
      controller: new AbortController(),
      reason: null,
      overBudget: false,
    };
    this.active.set(run.id, active);
    this.metrics.setRunsMeasuring(this.active.size);
    lease.onLost((reason) => {
      active.reason ??= reason;
      active.controller.abort(new Error(reason));
    });
    const budgetTimer = budget
      ? setTimeout(() => {
          if (active.reason !== null) return;
          active.reason = budget.reason;
          active.overBudget = true;
          this.logger.warn(`run ${run.id}: ${budget.reason}`);
          active.controller.abort(new Error(budget.reason));
        }, budget.budgetMs)
      : undefined;
    // The server's own metrics, scraped on this thread while the run measures on its own (never fails the run).
    const server = await startRunServerMetrics(run.endpoint, this.env, this.resolveHost);
    try {
      // on a thread of its own: this loop persists other runs and serves the queue meanwhile
      const result = await runBenchmarkInThread({ ...options, signal: active.controller.signal });
      const serverMetrics = await server?.finish(result);
      return {
        attempt,
        result,
        abortReason: active.reason,
        ...(active.overBudget ? { errorClass: 'endpoint' as const } : {}),
        ...(serverMetrics ? { serverMetrics } : {}),
      };
    } catch (error) {
      await server?.abandon();
      // the tokenizer is checked on the measuring thread before any request: a file that is no tokenizer
      const errorClass = error instanceof TokenizerFileError ? 'config' : 'internal';
      return this.endUnmeasured(
        { ...run, attempts: attempt },
        'failed',
        `the measurement failed: ${message(error)}`,
        errorClass,
      );
    } finally {
      clearTimeout(budgetTimer);
      this.active.delete(run.id);
      this.metrics.setRunsMeasuring(this.active.size);
    }
  }

  /**
   * The run's time budget from its profile's latest measured runs; none for a sweep point (its load
   * is not the profile's) or when they cannot be read (the run's own timeouts still bound it).
   */
  private async budgetOf(run: RunToProcess): Promise<ReturnType<typeof runBudget>> {
    if (!run.profileId || run.sweepId !== null) return null;
    const durations = await this.runs.recentDurationsMs(run.profileId, RUN_BUDGET_HISTORY).catch(() => []);
    return runBudget(durations, {
      factor: this.env.RUN_BUDGET_FACTOR,
      floorMs: this.env.RUN_BUDGET_FLOOR_MS,
    });
  }

  private async storeResult(run: RunToProcess, measured: Measured): Promise<RunJobOutcome> {
    const runId = run.id;
    const { attempt, result, abortReason, errorClass, serverMetrics } = measured;
    const verdict = verdictOf(result, abortReason);
    const point = this.sweepPointOf(run, result);
    let status: string | null;
    try {
      status = await this.retryWhileDatabaseIsAway(`store run ${runId}`, () =>
        this.runs.persist(runId, attempt, result, verdict.error, {
          sweepPoint: point,
          errorClass,
          serverMetrics,
        }),
      );
    } catch (error) {
      if (afterStoreFailure(error) === 'measure_again') throw error;
      return this.endUnmeasured(
        { id: runId, attempts: attempt },
        'failed',
        `the result could not be stored: ${message(error)}`,
        'internal',
      );
    }
    if (!status) {
      this.logger.warn(
        `run ${runId}: attempt ${attempt} was superseded by a newer attempt; its result is dropped`,
      );
      return { runId, status: 'unchanged', note: 'superseded' };
    }
    this.metrics.recordRunFinished(status);
    this.logger.log(`run ${runId} ${status}${verdict.error ? `: ${verdict.error}` : ''}`);
    this.telemetry.runStored(run, result, status);
    return { runId, status };
  }

  /** A sweep point's figures, stored with its result; none when the run is no point or they cannot be computed. */
  private sweepPointOf(run: RunToProcess, result: RunResult): object | undefined {
    if (run.sweepId === null) return undefined;
    try {
      return sweepPointFigures(run, result);
    } catch (error) {
      // The sweep's step reads a point without figures as its failure, with this reason in the log.
      this.logger.warn(`run ${run.id}: sweep point figures not computed: ${message(error)}`);
      return undefined;
    }
  }

  /** A run that cannot start before its deadline: ended unmeasured with the reason, and counted. */
  private async skip(run: RunToProcess, reason: string): Promise<RunJobOutcome> {
    const outcome = await this.endUnmeasured(run, 'aborted', reason, 'stopped');
    if (outcome.status === 'aborted') this.metrics.recordSkippedRun();
    return outcome;
  }

  private async endUnmeasured(
    run: Pick<RunToProcess, 'id' | 'attempts'>,
    status: 'aborted' | 'failed',
    reason: string,
    errorClass: 'stopped' | 'config' | 'internal',
  ): Promise<RunJobOutcome> {
    const ended = await this.retryWhileDatabaseIsAway(`end run ${run.id}`, () =>
      this.runs.endUnmeasured(run, status, reason, errorClass),
    );
    if (ended) {
      this.metrics.recordRunFinished(status);
      this.logger.log(`run ${run.id} ${status}: ${reason}`);
    }
    return { runId: run.id, status: ended ? status : 'unchanged', note: reason };
  }

  private async defer(
    job: Job<RunJobData, RunJobOutcome>,
    token: string | undefined,
    delayMs: number,
  ): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }

  private recordStartDelay(run: RunToProcess): void {
    const delayMs = startDelayMs(run, this.clock.now());
    if (delayMs !== null) this.metrics.recordStartDelay(delayMs);
  }

  /**
   * The endpoint as the measurement package connects to it: the URL policy is checked on the text
   * here (IP literals never reach a lookup) and on every resolved address at connect time.
   */
  private target(run: RunToProcess): Target {
    const { baseUrl, apiKind, model, authHeadersEnc } = run.endpoint;
    try {
      checkUrl(baseUrl, this.env.TEAPOT_ENDPOINT_URL_ALLOW);
    } catch (error) {
      throw new EndpointConfigError(
        `the endpoint's base URL is refused by the URL policy: ${message(error)}`,
      );
    }
    const lookup = this.lookup;
    if (!authHeadersEnc) return { baseUrl, apiKind, model, lookup };
    let headers: Record<string, string>;
    try {
      headers = decryptHeaders(authHeadersEnc, this.env.TEAPOT_SECRET_KEY);
    } catch (error) {
      throw new EndpointConfigError(`the endpoint's auth headers cannot be read: ${message(error)}`);
    }
    return { baseUrl, apiKind, model, headers, lookup };
  }

  /** A write retried while the database is away: PERSIST_RETRY_MAX_MS, or what is left of the grace on shutdown. */
  private async retryWhileDatabaseIsAway<T>(what: string, write: () => Promise<T>): Promise<T> {
    const { value, failures } = await retryWhileDatabaseIsAway(write, {
      giveUpAfterMs: this.closing ? this.env.SHUTDOWN_GRACE_MS : this.env.PERSIST_RETRY_MAX_MS,
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      onRetry: (error, failed) => {
        if (failed === 1) this.logger.warn(`${what}: database unreachable, retrying: ${message(error)}`);
        this.metrics.recordPersistRetry();
      },
    });
    if (failures > 0) this.logger.log(`${what}: written after ${failures} retries`);
    return value;
  }

  /**
   * A job out of attempts, or stalled too often (its worker died each time), leaves its run failed
   * with the cause in plain words rather than queued or running forever.
   */
  async onJobFailed(job: Job<RunJobData, RunJobOutcome>, error: Error): Promise<void> {
    const run = await this.runs.load(job.data.runId);
    if (!run || isFinalRunStatus(run.status)) return;
    const failure = jobFailureOf(job, error);
    if (await this.runs.endUnmeasured(run, 'failed', failure.reason, failure.errorClass)) {
      this.metrics.recordRunFinished('failed');
      this.logger.warn(`run ${run.id} failed (${failure.errorClass}): ${failure.reason}`);
      await this.advanceSweep(run);
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The endpoint as stored cannot be measured from this worker (run error class `config`): nothing is sent. */
class EndpointConfigError extends Error {}
