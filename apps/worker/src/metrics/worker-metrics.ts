import { Inject, Injectable } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { WORKER_ENV } from '../env/worker-env';
import type { TickReport } from '../schedule/scheduler.service';
import type { RunFigures } from '../telemetry/run-figures';
import { RunHistograms } from './run-histograms';

/**
 * This process's Prometheus metrics: its own counters (every module records here), the queue and
 * database gauges MetricsService sets before each scrape, and prom-client's process metrics. One
 * registry per instance, so several workers in one test process never share a series.
 */
@Injectable()
export class WorkerMetrics {
  readonly registry = new Registry();
  /** Runs this process is measuring now (also in the JSON /health). */
  runsMeasuring = 0;

  private readonly worker: string;
  private maxTick = 0;
  private readonly runsFinished = new Counter({
    name: 'teapot_worker_runs_finished_total',
    help: 'Runs this process finished, by final status.',
    labelNames: ['worker', 'status'],
    registers: [this.registry],
  });
  /** Set to 0 at boot (constructor): a scrape shows each series from the start, not from its first event. */
  private readonly counters = this.workerSeries(Counter, {
    ticks: ['teapot_scheduler_ticks_total', 'Scheduler ticks run.'],
    ticksFailed: ['teapot_scheduler_ticks_failed_total', 'Scheduler ticks that failed (retried next tick).'],
    slotsEnqueued: ['teapot_scheduler_slots_enqueued_total', 'Scheduled runs enqueued.'],
    slotsSkipped: [
      'teapot_scheduler_slots_skipped_total',
      'Missed slots (nothing queued at their due time) recorded as skipped runs.',
    ],
    runsSkipped: [
      'teapot_worker_runs_skipped_total',
      'Runs ended unmeasured because they could not start before their deadline (endpoint busy or late).',
    ],
    tickSeconds: ['teapot_scheduler_tick_seconds_total', 'Time spent in scheduler ticks.'],
    busyDeferrals: ['teapot_worker_busy_deferrals_total', 'Runs deferred because their endpoint was busy.'],
    persistRetries: ['teapot_worker_persist_retries_total', 'Retried writes of finished runs.'],
  });
  private readonly gauges = this.workerSeries(Gauge, {
    lastTickMs: ['teapot_scheduler_tick_last_ms', 'Duration of the last tick.'],
    maxTickMs: ['teapot_scheduler_tick_max_ms', 'Longest tick since start.'],
    lastStartDelayMs: ['teapot_worker_start_delay_ms', 'Due time to start of the last scheduled run.'],
    runningRuns: ['teapot_worker_running_runs', 'Runs this process is measuring now.'],
  });
  /** Set from the database and Redis by MetricsService before each scrape. */
  readonly queueJobs = new Gauge({
    name: 'teapot_queue_jobs',
    help: 'Jobs in a BullMQ queue by state.',
    labelNames: ['queue', 'state'],
    registers: [this.registry],
  });
  readonly runsByStatus = new Gauge({
    name: 'teapot_runs',
    help: 'Runs in the database by status.',
    labelNames: ['status'],
    registers: [this.registry],
  });

  private readonly runHistograms = new RunHistograms(this.registry);

  constructor(@Inject(WORKER_ENV) env: Pick<WorkerEnv, 'WORKER_ID'>) {
    this.worker = env.WORKER_ID;
    collectDefaultMetrics({ register: this.registry });
    for (const counter of Object.values(this.counters)) counter.inc({ worker: this.worker }, 0);
    for (const gauge of Object.values(this.gauges)) gauge.set({ worker: this.worker }, 0);
  }

  recordTick(report: TickReport): void {
    const worker = { worker: this.worker };
    this.counters.ticks.inc(worker);
    if (!report.ok) this.counters.ticksFailed.inc(worker);
    this.counters.slotsEnqueued.inc(worker, report.enqueued);
    this.counters.slotsSkipped.inc(worker, report.skipped);
    this.gauges.lastTickMs.set(worker, report.durationMs);
    this.maxTick = Math.max(this.maxTick, report.durationMs);
    this.gauges.maxTickMs.set(worker, this.maxTick);
    this.counters.tickSeconds.inc(worker, report.durationMs / 1000);
  }

  recordRunFinished(status: string): void {
    this.runsFinished.inc({ worker: this.worker, status });
  }

  /** A measured run's latency samples into the `teapot_run_*_seconds` histograms of its group. */
  recordRunFigures({ group, samples }: Pick<RunFigures, 'group' | 'samples'>): void {
    this.runHistograms.add(
      {
        endpoint: group.endpoint,
        endpoint_id: group.endpointId,
        profile: group.profile,
        profile_id: group.profileId,
        config_version: String(group.configVersion),
        worker: this.worker,
      },
      samples,
    );
  }

  recordSkippedRun(): void {
    this.counters.runsSkipped.inc({ worker: this.worker });
  }

  recordBusyDeferral(): void {
    this.counters.busyDeferrals.inc({ worker: this.worker });
  }

  recordPersistRetry(): void {
    this.counters.persistRetries.inc({ worker: this.worker });
  }

  /** Time from a scheduled slot's due time to its run's start, ms. */
  recordStartDelay(ms: number): void {
    this.gauges.lastStartDelayMs.set({ worker: this.worker }, ms);
  }

  setRunsMeasuring(count: number): void {
    this.runsMeasuring = count;
    this.gauges.runningRuns.set({ worker: this.worker }, count);
  }

  /** This process's value of one of its own series (0 before any), e.g. `teapot_worker_busy_deferrals_total`. */
  async valueOf(name: string, labels: Record<string, string> = {}): Promise<number> {
    const metric = this.registry.getSingleMetric(name);
    if (!metric) throw new Error(`no metric ${name}`);
    const wanted = { worker: this.worker, ...labels };
    const { values } = await metric.get();
    const series = values.find((value) =>
      Object.entries(wanted).every(([label, text]) => value.labels[label] === text),
    );
    return series?.value ?? 0;
  }

  /** One series of `kind` per entry, labelled only by `worker`: name and help by key. */
  private workerSeries<M extends Counter | Gauge, K extends string>(
    kind: new (config: { name: string; help: string; labelNames: string[]; registers: Registry[] }) => M,
    series: Record<K, readonly [name: string, help: string]>,
  ): Record<K, M> {
    const entries = Object.entries<readonly [string, string]>(series).map(([key, [name, help]]) => [
      key,
      new kind({ name, help, labelNames: ['worker'], registers: [this.registry] }),
    ]);
    return Object.fromEntries(entries) as Record<K, M>;
  }
}
