export { createPrisma, createDatabase } from './client';
export type { CreatePrismaOptions, Database, CreateDatabaseOptions } from './client';
export { migrate, readMigrations, MIGRATIONS_DIR } from './migrate';
export type { MigrateOptions, MigrateResult, MigrationFile } from './migrate';
export { ensureDatabase, dropDatabase } from './connection';
export { PrismaClient, Prisma } from './generated/prisma/client';
export * from './generated/prisma/enums';
export type {
  ApiKey,
  Endpoint,
  ServingConfig,
  Profile,
  Run,
  RunRequest,
  RunHistogram,
} from './generated/prisma/client';
