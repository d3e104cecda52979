import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { PooledPrismaClient } from '@teapot/db';
import { API_ENV } from '../env/env.module';

/** The API's one database client; its pg pool also serves the bulk run reader. */
@Injectable()
export class PrismaService extends PooledPrismaClient implements OnModuleInit, OnModuleDestroy {
  constructor(@Inject(API_ENV) env: ApiEnv) {
    super(env.DATABASE_URL);
  }

  /** Refuses to start on a database without this checkout's migrations, saying how to apply them. */
  async onModuleInit(): Promise<void> {
    await this.$connect();
    await this.assertMigrated();
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }
}
