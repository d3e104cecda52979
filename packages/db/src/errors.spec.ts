import { createDatabase } from './client';
import { classifyDbError, isTransientDbError, isUniqueViolation } from './errors';
import { createTestDatabase } from './testing';

function coded(code: string, message = 'x', cause?: unknown): Error {
  return Object.assign(new Error(message), { code, cause });
}

describe('classifyDbError', () => {
  it.each([
    ['ECONNREFUSED', 'transient'],
    ['57P01', 'transient'],
    ['08006', 'transient'],
    ['40P01', 'transient'],
    ['P1001', 'transient'],
    ['P2024', 'pool_exhausted'],
    ['P2002', 'unique_violation'],
    ['23505', 'unique_violation'],
    ['22P02', 'permanent'],
    ['P2025', 'permanent'],
    ['0800', 'permanent'],
  ])('%s is %s', (code, kind) => {
    expect(classifyDbError(coded(code))).toBe(kind);
  });

  it('never retries pool exhaustion, even when a cause looks transient', () => {
    const error = coded('P2024', 'Timed out fetching a new connection', coded('ETIMEDOUT'));
    expect(isTransientDbError(error)).toBe(false);
  });

  it('looks through the cause chain and at unreachable-database messages', () => {
    expect(classifyDbError(new Error('wrapped', { cause: coded('ECONNRESET') }))).toBe('transient');
    expect(classifyDbError(new Error('Connection terminated unexpectedly'))).toBe('transient');
    expect(classifyDbError(Object.assign(new Error('adapter'), { originalCode: '23505' }))).toBe(
      'unique_violation',
    );
    expect(classifyDbError(new Error('column "x" does not exist'))).toBe('permanent');
    expect(classifyDbError(undefined)).toBe('permanent');
  });

  it('classifies a wait for a free pool connection that timed out as pool exhaustion, not transient', async () => {
    const testDb = await createTestDatabase();
    const db = createDatabase(testDb.url, { max: 1, connectionTimeoutMs: 100 });
    const held = await db.pool.connect();
    try {
      const waited = await db.pool.connect().catch((error: unknown) => error);
      expect(waited).toBeInstanceOf(Error);
      expect(classifyDbError(waited)).toBe('pool_exhausted');
      const throughPrisma = await db.prisma.endpoint.count().catch((error: unknown) => error);
      expect(classifyDbError(throughPrisma)).toBe('pool_exhausted');
      expect(isTransientDbError(new Error('wrapped', { cause: throughPrisma }))).toBe(false);
    } finally {
      held.release();
      await db.close();
      await testDb.drop();
    }
  });

  it('classifies what Prisma and pg really throw', async () => {
    const testDb = await createTestDatabase();
    const db = createDatabase(testDb.url, { max: 1 });
    try {
      const endpoint = {
        name: 'same',
        baseUrl: 'http://127.0.0.1:1/v1',
        apiKind: 'chat',
        model: 'm',
      } as const;
      await db.prisma.endpoint.create({ data: endpoint });
      const prismaError = await db.prisma.endpoint
        .create({ data: endpoint })
        .catch((error: unknown) => error);
      expect(isUniqueViolation(prismaError)).toBe(true);
      const pgError = await db.pool
        .query(
          'INSERT INTO endpoints (id, name, base_url, api_kind, model, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, now())',
          ['same', 'u', 'chat', 'm'],
        )
        .catch((error: unknown) => error);
      expect(isUniqueViolation(pgError)).toBe(true);
      const badSql = await db.pool
        .query('SELECT no_such_column FROM endpoints')
        .catch((error: unknown) => error);
      expect(classifyDbError(badSql)).toBe('permanent');
    } finally {
      await db.close();
      await testDb.drop();
    }
    const away = createDatabase('postgresql://postgres@127.0.0.1:1/none', { max: 1 });
    try {
      const refused = await away.prisma.endpoint.count().catch((error: unknown) => error);
      expect(isTransientDbError(refused)).toBe(true);
    } finally {
      await away.close();
    }
  });
});
