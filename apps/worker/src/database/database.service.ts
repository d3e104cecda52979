import { Inject, Injectable } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { createDatabase, type Database } from '@teapot/db';
import { WORKER_ENV } from '../env/worker-env';

/** The worker's one database pool, shared by Prisma and the bulk writer. Closed by WorkerLifecycle. */
@Injectable()
export class DatabaseService {
  readonly prisma: Database['prisma'];
  readonly pool: Database['pool'];
  private readonly database: Database;

  constructor(@Inject(WORKER_ENV) env: WorkerEnv) {
    // A measuring run holds no connection; scheduler, reaper and writers need a few at once.
    this.database = createDatabase(env.DATABASE_URL, { max: Math.min(20, env.WORKER_CONCURRENCY + 4) });
    this.prisma = this.database.prisma;
    this.pool = this.database.pool;
    // pg emits errors of idle clients (e.g. Postgres restarted); the pool replaces them on next use.
    this.pool.on('error', () => undefined);
  }

  close(): Promise<void> {
    return this.database.close();
  }
}
