import { Inject, Injectable } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { WORKER_ENV } from '../env/worker-env';
import type { TickReport } from '../schedule/scheduler.service';

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
  /**
   * The series with only the `worker` label, set to 0 at boot: a scrape shows each from the start
   * instead of missing until its first event. (Declared before them: the helpers add to it.)
   */
  private readonly zeroAtBoot: Array<Counter | Gauge> = [];
  private readonly runsFinished = new Counter({
    name: 'teapot_worker_runs_finished_total',
    help: 'Runs this process finished, by final status.',
    labelNames: ['worker', 'status'],
    registers: [this.registry],
  });
  private readonly ticks = this.series(Counter, 'teapot_scheduler_ticks_total', 'Scheduler ticks run.');
  private readonly ticksFailed = this.series(
    Counter,
    'teapot_scheduler_ticks_failed_total',
    'Scheduler ticks that failed (retried next tick).',
  );
  private readonly slotsEnqueued = this.series(
    Counter,
    'teapot_scheduler_slots_enqueued_total',
    'Scheduled runs enqueued.',
  );
  private readonly tickSeconds = this.series(
    Counter,
    'teapot_scheduler_tick_seconds_total',
    'Time spent in scheduler ticks.',
  );
  private readonly lastTickMs = this.series(
    Gauge,
    'teapot_scheduler_tick_last_ms',
    'Duration of the last tick.',
  );
  private readonly maxTickMs = this.series(
    Gauge,
    'teapot_scheduler_tick_max_ms',
    'Longest tick since start.',
  );
  private readonly lastStartDelayMs = this.series(
    Gauge,
    'teapot_worker_start_delay_ms',
    'Due time to start of the last scheduled run.',
  );
  private readonly busyDeferrals = this.series(
    Counter,
    'teapot_worker_busy_deferrals_total',
    'Runs deferred because their endpoint was busy.',
  );
  private readonly persistRetries = this.series(
    Counter,
    'teapot_worker_persist_retries_total',
    'Retried writes of finished runs.',
  );
  private readonly runningRuns = this.series(
    Gauge,
    'teapot_worker_running_runs',
    'Runs this process is measuring now.',
  );
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

  constructor(@Inject(WORKER_ENV) env: Pick<WorkerEnv, 'WORKER_ID'>) {
    this.worker = env.WORKER_ID;
    collectDefaultMetrics({ register: this.registry });
    for (const metric of this.zeroAtBoot) {
      if (metric instanceof Counter) metric.inc({ worker: this.worker }, 0);
      else metric.set({ worker: this.worker }, 0);
    }
  }

  recordTick(report: TickReport): void {
    const worker = { worker: this.worker };
    this.ticks.inc(worker);
    if (!report.ok) this.ticksFailed.inc(worker);
    this.slotsEnqueued.inc(worker, report.enqueued);
    this.lastTickMs.set(worker, report.durationMs);
    this.maxTick = Math.max(this.maxTick, report.durationMs);
    this.maxTickMs.set(worker, this.maxTick);
    this.tickSeconds.inc(worker, report.durationMs / 1000);
  }

  recordRunFinished(status: string): void {
    this.runsFinished.inc({ worker: this.worker, status });
  }

  recordBusyDeferral(): void {
    this.busyDeferrals.inc({ worker: this.worker });
  }

  recordPersistRetry(): void {
    this.persistRetries.inc({ worker: this.worker });
  }

  /** Time from a scheduled slot's due time to its run's start, ms. */
  recordStartDelay(ms: number): void {
    this.lastStartDelayMs.set({ worker: this.worker }, ms);
  }

  setRunsMeasuring(count: number): void {
    this.runsMeasuring = count;
    this.runningRuns.set({ worker: this.worker }, count);
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

  /** A series labelled only by `worker`, shown as 0 from boot. */
  private series<M extends Counter | Gauge>(
    kind: new (config: { name: string; help: string; labelNames: string[]; registers: Registry[] }) => M,
    name: string,
    help: string,
  ): M {
    const metric = new kind({ name, help, labelNames: ['worker'], registers: [this.registry] });
    this.zeroAtBoot.push(metric);
    return metric;
  }
}
