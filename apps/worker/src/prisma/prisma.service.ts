import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { PooledPrismaClient } from '@teapot/db';
import { WORKER_ENV } from '../env/worker-env';

/** The worker's one database client; its pg pool also serves the bulk run writer. */
@Injectable()
export class PrismaService extends PooledPrismaClient implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(WORKER_ENV) env: WorkerEnv) {
    // A measuring run holds no connection; scheduler, reaper and writers need a few at once.
    super(env.DATABASE_URL, {
      max: Math.min(20, env.WORKER_CONCURRENCY + 4),
      queryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS,
    });
    // pg emits errors of idle clients (e.g. Postgres restarted); the pool replaces them on next use.
    this.pool.on('error', () => undefined);
  }

  async onModuleInit(): Promise<void> {
    await this.$connect();
  }

  /** Last, after every module's beforeApplicationShutdown: queue workers store their runs first. */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}
