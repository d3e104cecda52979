import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { lookup } from 'node:dns';
import { NestFactory } from '@nestjs/core';
import type { HostResolver } from '@teapot/webhooks';
import { assertDatabaseMigrated } from '@teapot/db';
import { loadWorkerEnv, type EnvSource, type WorkerEnv } from '@teapot/config';
import { Logger } from 'nestjs-pino';
import { systemClock, type Clock } from './env/worker-env';
import { WorkerModule } from './worker.module';

export interface CreateWorkerAppOptions {
  /** Environment variables to validate (default: process.env). */
  env?: EnvSource;
  /** Time source for the scheduler, reaper and deadlines (default: Date.now). */
  clock?: Clock;
  /** Log destination; false silences logs (benchmarks). Default: JSON lines on stdout. */
  logs?: boolean;
  /**
   * Default true: the queue workers, scheduler ticks and chores of WORKER_QUEUES start on boot.
   * False: the modules are there but idle, for a script that calls `tick()`, `reap()`, `runDue()`.
   */
  autoStart?: boolean;
  /**
   * Resolves endpoint and webhook host names before the URL policy judges the addresses, at every
   * connection (default: dns.lookup); a test passes a stub where it has no DNS.
   */
  resolveHost?: HostResolver;
}

/**
 * The worker as an application context (no HTTP server but the optional metrics listener), with
 * the modules of the roles in WORKER_QUEUES. It refuses to start (rejects) when a configured queue
 * has a job without a handler, or a job has two, and when the database lacks a migration.
 */
export async function createWorkerApp(
  options: CreateWorkerAppOptions = {},
): Promise<INestApplicationContext> {
  const env: WorkerEnv = loadWorkerEnv(options.env ?? process.env);
  // Before any module opens Redis or a pool: a refusal here leaves nothing behind to close.
  await assertDatabaseMigrated(env.DATABASE_URL);
  const module = WorkerModule.forRoot({
    env,
    clock: options.clock ?? systemClock,
    autoStart: options.autoStart ?? true,
    logLevel: options.logs === false ? 'silent' : env.LOG_LEVEL,
    resolveHost: options.resolveHost ?? (lookup as HostResolver),
  });
  const app = await NestFactory.createApplicationContext(module, { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(Logger));
  return app;
}
