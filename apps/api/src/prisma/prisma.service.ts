import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import type { ApiEnv } from '@teapot/config';
import { PrismaClient } from '@teapot/db';
import { Pool } from 'pg';
import { API_ENV } from '../env/env.module';

/** The API's one database client; its pg pool also serves the bulk run reader. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  readonly pool: Pool;

  constructor(@Inject(API_ENV) env: ApiEnv) {
    const pool = new Pool({ connectionString: env.DATABASE_URL });
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  async onModuleInit(): Promise<void> {
    await this.$connect();
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end();
  }
}
