// For `prisma migrate deploy|status` on a machine that can fetch Prisma's schema engine; here,
// `pnpm db:migrate` applies the same migrations and records them the same way.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: '../../prisma/schema',
  migrations: { path: '../../prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/teapot' },
});
