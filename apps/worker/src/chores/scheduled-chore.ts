import {
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type Provider,
  type Type,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { WorkerEnv } from '@teapot/config';
import { CronJob } from 'cron';
import { AUTO_START, WORKER_ENV } from '../env/worker-env';

/** Every `everyMs`, or at each time of a cron expression (UTC) with a failed pass retried after `retryMs`. */
export type ChoreTiming = { everyMs: number } | { cron: string; retryMs: number };

/**
 * A chore ticked by @nestjs/schedule: an interval or a cron job registered in the SchedulerRegistry
 * under the chore's name, on boot unless AUTO_START is false. A pass is never entered while the
 * previous one runs; a failure is logged (its last line: Prisma's messages open with the call site)
 * and the next tick tries again. beforeApplicationShutdown removes the chore's entries and awaits
 * the pass in flight, so none runs once the database and Redis close (onApplicationShutdown).
 */
export class ScheduledChore implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private running: Promise<void> | null = null;
  private started = false;
  private stopped = false;

  constructor(
    private readonly registry: SchedulerRegistry,
    readonly name: string,
    readonly timing: ChoreTiming,
    private readonly options: { atBoot: boolean; autoStart: boolean; run: () => Promise<unknown> },
  ) {
    this.logger = new Logger(`Chore ${name}`);
  }

  private get retryName(): string {
    return `${this.name} retry`;
  }

  onApplicationBootstrap(): void {
    if (!this.options.autoStart || this.started) return;
    this.started = true;
    const { timing } = this;
    if ('everyMs' in timing) {
      this.registry.addInterval(
        this.name,
        setInterval(() => void this.tick(), timing.everyMs),
      );
    } else {
      const job = CronJob.from({ cronTime: timing.cron, timeZone: 'UTC', onTick: () => this.tick() });
      this.registry.addCronJob(this.name, job);
      job.start();
    }
    if (this.options.atBoot) void this.tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    // ScheduleModule clears its registry in the same phase; whichever runs first removes the entry.
    if (this.registry.doesExist('interval', this.name)) this.registry.deleteInterval(this.name);
    if (this.registry.doesExist('cron', this.name)) this.registry.deleteCronJob(this.name);
    this.cancelRetry();
    await this.running;
  }

  /** One pass, unless one is running (the returned promise is that pass) or the worker is stopping. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    this.cancelRetry();
    try {
      await this.options.run();
    } catch (error) {
      const { timing } = this;
      const retryMs = 'everyMs' in timing ? timing.everyMs : timing.retryMs;
      this.logger.warn(`${this.name} failed, retrying in ${retryMs} ms: ${lastLine(error)}`);
      if (!('everyMs' in timing) && !this.stopped)
        this.registry.addTimeout(
          this.retryName,
          setTimeout(() => void this.tick(), retryMs),
        );
    }
  }

  private cancelRetry(): void {
    if (this.registry.doesExist('timeout', this.retryName)) this.registry.deleteTimeout(this.retryName);
  }
}

export interface ScheduledChoreOptions<Service> {
  /** Names the chore in the SchedulerRegistry and in logs. */
  name: string;
  /** The provider whose method the chore calls. */
  service: Type<Service>;
  timing: (env: WorkerEnv) => ChoreTiming;
  /** Default true: a first pass at boot, before the first tick. */
  atBoot?: boolean;
  run: (service: Service) => Promise<unknown>;
}

/** A module's provider that ticks `run(service)` while the worker runs (see ScheduledChore). */
export function scheduledChore<Service>(options: ScheduledChoreOptions<Service>): Provider {
  return {
    provide: `chore: ${options.name}`,
    inject: [options.service, WORKER_ENV, AUTO_START, SchedulerRegistry],
    useFactory: (service: Service, env: WorkerEnv, autoStart: boolean, registry: SchedulerRegistry) =>
      new ScheduledChore(registry, options.name, options.timing(env), {
        atBoot: options.atBoot ?? true,
        autoStart,
        run: () => options.run(service),
      }),
  };
}

function lastLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .pop() ?? text
  );
}
