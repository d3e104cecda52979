import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { WorkerEnv } from '@teapot/config';
import { DatabaseService } from './database/database.service';
import { CLOCK, WORKER_ENV, type Clock } from './env/worker-env';
import { MetricsService } from './metrics/metrics.service';
import { WorkerMetrics } from './metrics/worker-metrics';
import { RedisService } from './redis/redis.service';
import { RetentionService } from './retention/retention.service';
import { RunReaper } from './runs/run-reaper';
import { RunStore } from './runs/run-store';
import { RunProcessor } from './runs/run.processor';
import { SchedulerService } from './schedule/scheduler.service';
import { WorkerLifecycle } from './worker.lifecycle';

/** The whole worker. One module: its parts share one pool, one Redis connection and one lifecycle. */
@Module({})
export class WorkerModule {
  static forRoot(env: WorkerEnv, clock: Clock): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ScheduleModule.forRoot()],
      providers: [
        { provide: WORKER_ENV, useValue: env },
        { provide: CLOCK, useValue: clock },
        DatabaseService,
        RedisService,
        WorkerMetrics,
        RunStore,
        RunProcessor,
        SchedulerService,
        RunReaper,
        RetentionService,
        MetricsService,
        WorkerLifecycle,
      ],
    };
  }
}
