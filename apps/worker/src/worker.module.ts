import {
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Type,
} from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { LogLevel, WorkerEnv } from '@teapot/config';
import type { WorkerRole } from '@teapot/contracts';
import type { HostResolver } from '@teapot/webhooks';
import { AnalysisModule } from './analysis/analysis.module';
import { ChangePointsModule } from './change-points/change-points.module';
import { EnvModule } from './env/env.module';
import { AUTO_START, WORKER_ENV, type Clock } from './env/worker-env';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { PrismaModule } from './prisma/prisma.module';
import { QueuesModule } from './queues/queues.module';
import { RedisModule } from './redis/redis.module';
import { RetentionModule } from './retention/retention.module';
import { RunsModule } from './runs/runs.module';
import { SchedulerModule } from './schedule/scheduler.module';
import { SweepsModule } from './sweeps/sweeps.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The module of each queue and chore that WORKER_QUEUES can name: a process imports only the
 * modules of its roles. A queue added to @teapot/contracts without a module here does not compile.
 */
export const ROLE_MODULES: Record<WorkerRole, Type> = {
  runs: RunsModule,
  webhooks: WebhooksModule,
  analysis: AnalysisModule,
  schedule: SchedulerModule,
  retention: RetentionModule,
  'change-points': ChangePointsModule,
  sweeps: SweepsModule,
};

export interface WorkerModuleOptions {
  env: WorkerEnv;
  clock: Clock;
  /** False: nothing starts on boot; a script drives the services (see createWorkerApp). */
  autoStart: boolean;
  logLevel: LogLevel;
  resolveHost: HostResolver;
}

/**
 * The worker: shared infrastructure (environment, logging, one Prisma pool, one Redis connection,
 * metrics, queue workers) plus one module per role in WORKER_QUEUES. Each module starts its own
 * work on boot and stops it in beforeApplicationShutdown; Redis and the database close after all
 * of them (onApplicationShutdown).
 */
@Module({})
export class WorkerModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Worker');

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(AUTO_START) private readonly autoStart: boolean,
  ) {}

  static forRoot(options: WorkerModuleOptions): DynamicModule {
    const { env } = options;
    return {
      module: WorkerModule,
      imports: [
        EnvModule.forRoot(env, options.clock, options.autoStart, options.resolveHost),
        LoggingModule.forRoot(options.logLevel, env.WORKER_ID),
        PrismaModule,
        RedisModule,
        MetricsModule,
        TelemetryModule,
        QueuesModule,
        // The tick source of every chore; each role's module registers its own (ScheduledChore).
        ScheduleModule.forRoot(),
        ...env.WORKER_QUEUES.map((role) => ROLE_MODULES[role]),
      ],
    };
  }

  /** Runs after every other module's bootstrap (the root module comes last). */
  onApplicationBootstrap(): void {
    const roles = this.env.WORKER_QUEUES.join(', ');
    this.logger.log(
      `worker ${this.env.WORKER_ID} started: ${this.autoStart ? roles : `${roles} (idle: driven by a script)`}, concurrency ${this.env.WORKER_CONCURRENCY}`,
    );
  }

  /** Runs after every module's beforeApplicationShutdown: jobs are drained and stored by now. */
  onApplicationShutdown(signal?: string): void {
    this.logger.log(`worker ${this.env.WORKER_ID} stopped${signal ? ` on ${signal}` : ''}`);
  }
}
