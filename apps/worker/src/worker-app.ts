import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadWorkerEnv, type EnvSource, type WorkerEnv } from '@teapot/config';
import { systemClock, type Clock } from './env/worker-env';
import { PinoLoggerService } from './logger';
import { WorkerModule } from './worker.module';

export interface CreateWorkerAppOptions {
  /** Environment variables to validate (default: process.env). */
  env?: EnvSource;
  /** Time source for the scheduler, reaper and deadlines (default: Date.now). */
  clock?: Clock;
  /** Log destination; false silences logs (benchmarks). Default: JSON lines on stdout. */
  logs?: boolean;
}

/**
 * The worker as an application context (no HTTP server but the optional metrics listener).
 * Everything starts on return: processor, scheduler, reaper, retention, per the environment.
 * Drive it from a script with SCHEDULER_ENABLED=false and `app.get(SchedulerService).tick(now)`.
 */
export async function createWorkerApp(
  options: CreateWorkerAppOptions = {},
): Promise<INestApplicationContext> {
  const env: WorkerEnv = loadWorkerEnv(options.env ?? process.env);
  const logger = new PinoLoggerService(options.logs === false ? 'silent' : env.LOG_LEVEL, env.WORKER_ID);
  return NestFactory.createApplicationContext(WorkerModule.forRoot(env, options.clock ?? systemClock), {
    logger,
    abortOnError: false,
  });
}
