import {
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type Provider,
  type Type,
} from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { AUTO_START, WORKER_ENV } from '../env/worker-env';

/**
 * A chore run at boot and then every `everyMs`, never overlapping itself. A failure is logged (its
 * last line: Prisma's messages open with the call site) and the chore runs again at the next turn.
 * Started in onApplicationBootstrap (unless AUTO_START is false), stopped in beforeApplicationShutdown.
 */
export class PeriodicChore implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly chore: () => Promise<unknown>,
    private readonly autoStart: boolean,
  ) {
    this.logger = new Logger(`PeriodicChore ${name}`);
  }

  onApplicationBootstrap(): void {
    if (!this.autoStart || this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    void this.runOnce();
  }

  beforeApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async runOnce(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.chore();
    } catch (error) {
      this.logger.warn(`${this.name} failed, retrying in ${this.everyMs} ms: ${lastLine(error)}`);
    } finally {
      this.busy = false;
    }
  }
}

export interface PeriodicChoreOptions<Service> {
  /** Names the chore in logs. */
  name: string;
  /** The provider whose method the chore calls. */
  service: Type<Service>;
  everyMs: (env: WorkerEnv) => number;
  run: (service: Service) => Promise<unknown>;
}

/** A module's provider that runs `run(service)` periodically while the worker runs. */
export function periodicChore<Service>(options: PeriodicChoreOptions<Service>): Provider {
  return {
    provide: `periodic chore: ${options.name}`,
    inject: [options.service, WORKER_ENV, AUTO_START],
    useFactory: (service: Service, env: WorkerEnv, autoStart: boolean) =>
      new PeriodicChore(options.name, options.everyMs(env), () => options.run(service), autoStart),
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
