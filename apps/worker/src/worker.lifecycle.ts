import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { WorkerEnv } from '@teapot/config';
import { DatabaseService } from './database/database.service';
import { WORKER_ENV } from './env/worker-env';
import { MetricsService } from './metrics/metrics.service';
import { RedisService } from './redis/redis.service';
import { RetentionService } from './retention/retention.service';
import { RunReaper } from './runs/run-reaper';
import { RunProcessor } from './runs/run.processor';
import { SchedulerService } from './schedule/scheduler.service';

const REAPER = 'teapot-reaper';
const RETENTION = 'teapot-retention';
const RETENTION_CHECK_MS = 60_000;

/**
 * Starts and stops the worker's parts in one place, so the order is explicit. Shutdown: stop the
 * scheduler and periodic jobs, let the processor finish its runs (aborting them after
 * SHUTDOWN_GRACE_MS) and close the BullMQ Worker, then the queue and Redis, then the database.
 */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerLifecycle.name);
  /** Bound port of the metrics listener, when WORKER_METRICS_PORT is set. */
  metricsPort: number | null = null;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    private readonly registry: SchedulerRegistry,
    private readonly scheduler: SchedulerService,
    private readonly processor: RunProcessor,
    private readonly reaper: RunReaper,
    private readonly retention: RetentionService,
    private readonly metrics: MetricsService,
    private readonly redis: RedisService,
    private readonly database: DatabaseService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.env.WORKER_METRICS_PORT !== undefined) {
      this.metricsPort = await this.metrics.listen(this.env.WORKER_METRICS_PORT);
    }
    if (this.env.PROCESSOR_ENABLED) this.processor.start();
    if (this.env.SCHEDULER_ENABLED) this.scheduler.start();
    this.every(REAPER, this.env.REAPER_INTERVAL_MS, () => this.reaper.reap());
    this.every(RETENTION, RETENTION_CHECK_MS, () => this.retention.runDue());
    this.logger.log(
      `worker ${this.env.WORKER_ID} started: processor ${this.env.PROCESSOR_ENABLED ? `on (concurrency ${this.env.WORKER_CONCURRENCY})` : 'off'}, scheduler ${this.env.SCHEDULER_ENABLED ? `on (tick ${this.env.SCHEDULER_TICK_MS} ms)` : 'off'}`,
    );
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.logger.log(`worker ${this.env.WORKER_ID} stopping${signal ? ` on ${signal}` : ''}`);
    this.scheduler.stop();
    for (const name of [REAPER, RETENTION]) {
      if (this.registry.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    await this.processor.close(this.env.SHUTDOWN_GRACE_MS);
    await this.metrics.close();
    await this.redis.close();
    await this.database.close();
    this.logger.log(`worker ${this.env.WORKER_ID} stopped`);
  }

  /** A periodic chore that runs now and then every `ms`; failures are logged, never thrown. */
  private every(name: string, ms: number, chore: () => Promise<unknown>): void {
    let busy = false;
    const run = async () => {
      if (busy) return;
      busy = true;
      try {
        await chore();
      } catch (error) {
        this.logger.warn(`${name} failed, retrying in ${ms} ms: ${lastLine(error)}`);
      } finally {
        busy = false;
      }
    };
    this.registry.addInterval(
      name,
      setInterval(() => void run(), ms),
    );
    void run();
  }
}

/** Prisma's messages open with the call site over many lines; the cause is on the last one. */
function lastLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .pop() ?? text
  );
}
