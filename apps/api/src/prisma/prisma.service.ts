import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { createPool, PooledPrismaClient } from '@teapot/db';
import type { Pool } from 'pg';
import { API_ENV } from '../env/env.module';

/** The API's one database client; its pg pool also serves the bulk run reader. */
@Injectable()
export class PrismaService extends PooledPrismaClient implements OnModuleInit, OnModuleDestroy {
  /**
   * Heavy analyses' own pool, as large as how many may run at once (TEAPOT_ANALYSIS_CONCURRENCY):
   * however many are admitted, they never take a connection that /health or a cheap route needs.
   */
  readonly analysisPool: Pool;

  constructor(@Inject(API_ENV) env: ApiEnv) {
    super(env.DATABASE_URL, { queryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS });
    this.analysisPool = createPool(env.DATABASE_URL, {
      max: env.TEAPOT_ANALYSIS_CONCURRENCY,
      queryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS,
    });
  }

  /** Refuses to start on a database without this checkout's migrations, saying how to apply them. */
  async onModuleInit(): Promise<void> {
    await this.$connect();
    await this.assertMigrated();
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
    await this.analysisPool.end();
  }
}
