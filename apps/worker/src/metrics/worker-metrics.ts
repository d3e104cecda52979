import { Injectable } from '@nestjs/common';
import type { TickReport } from '../schedule/scheduler.service';

/** Counters of this process, rendered by MetricsService next to queue and database gauges. */
@Injectable()
export class WorkerMetrics {
  readonly runsFinished = new Map<string, number>();
  ticks = 0;
  ticksFailed = 0;
  slotsEnqueued = 0;
  lastTickMs = 0;
  maxTickMs = 0;
  tickSeconds = 0;
  /** Time from a scheduled slot's due time to its run's start, last seen, ms. */
  lastStartDelayMs = 0;
  busyDeferrals = 0;
  /** Runs this process is measuring now. */
  runsMeasuring = 0;
  persistRetries = 0;

  recordTick(report: TickReport): void {
    this.ticks++;
    if (!report.ok) this.ticksFailed++;
    this.slotsEnqueued += report.enqueued;
    this.lastTickMs = report.durationMs;
    this.maxTickMs = Math.max(this.maxTickMs, report.durationMs);
    this.tickSeconds += report.durationMs / 1000;
  }

  recordRunFinished(status: string): void {
    this.runsFinished.set(status, (this.runsFinished.get(status) ?? 0) + 1);
  }

  prometheusLines(workerId: string): string[] {
    const label = `worker="${workerId}"`;
    const lines = [
      '# HELP teapot_worker_runs_finished_total Runs this process finished, by final status.',
      '# TYPE teapot_worker_runs_finished_total counter',
      ...[...this.runsFinished].map(
        ([status, n]) => `teapot_worker_runs_finished_total{${label},status="${status}"} ${n}`,
      ),
    ];
    const counter = (name: string, help: string, value: number, type = 'counter') =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}{${label}} ${value}`);
    counter('teapot_scheduler_ticks_total', 'Scheduler ticks run.', this.ticks);
    counter(
      'teapot_scheduler_ticks_failed_total',
      'Scheduler ticks that failed (retried next tick).',
      this.ticksFailed,
    );
    counter('teapot_scheduler_slots_enqueued_total', 'Scheduled runs enqueued.', this.slotsEnqueued);
    counter('teapot_scheduler_tick_seconds_total', 'Time spent in scheduler ticks.', this.tickSeconds);
    counter('teapot_scheduler_tick_last_ms', 'Duration of the last tick.', this.lastTickMs, 'gauge');
    counter('teapot_scheduler_tick_max_ms', 'Longest tick since start.', this.maxTickMs, 'gauge');
    counter(
      'teapot_worker_start_delay_ms',
      'Due time to start of the last scheduled run.',
      this.lastStartDelayMs,
      'gauge',
    );
    counter(
      'teapot_worker_busy_deferrals_total',
      'Runs deferred because their endpoint was busy.',
      this.busyDeferrals,
    );
    counter('teapot_worker_persist_retries_total', 'Retried writes of finished runs.', this.persistRetries);
    return lines;
  }
}
