import { WORKER_ROLES } from '@teapot/contracts';
import { EnvError } from './env';
import { loadWorkerEnv } from './worker';

const VALID = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/teapot',
  REDIS_URL: 'redis://127.0.0.1:6379',
  TEAPOT_SECRET_KEY: 'cd'.repeat(32),
};

describe('loadWorkerEnv', () => {
  it('applies defaults that make a single safe worker', () => {
    const env = loadWorkerEnv(VALID);
    expect(env.WORKER_CONCURRENCY).toBe(1);
    expect(env.SCHEDULER_TICK_MS).toBe(1000);
    expect(env.RETENTION_RAW_DAYS).toBe(30);
    expect(env.RETENTION_WEBHOOK_DAYS).toBe(30);
    expect(env.WORKER_QUEUES).toEqual([...WORKER_ROLES]);
    expect(env.WORKER_METRICS_PORT).toBeUndefined();
    expect(env.WORKER_ID).toMatch(new RegExp(`-${process.pid}$`));
  });

  it('reads numbers and flags', () => {
    const env = loadWorkerEnv({
      ...VALID,
      WORKER_CONCURRENCY: '4',
      WORKER_QUEUES: ' runs, schedule,runs',
      WORKER_METRICS_PORT: '9464',
      WORKER_ID: 'w-1',
    });
    expect(env).toMatchObject({
      WORKER_CONCURRENCY: 4,
      WORKER_QUEUES: ['runs', 'schedule'],
      WORKER_METRICS_PORT: 9464,
      WORKER_ID: 'w-1',
    });
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadWorkerEnv({
        ...VALID,
        WORKER_CONCURRENCY: '0',
        WORKER_QUEUES: 'runs,webhook',
        REDIS_URL: undefined,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    const variables = (error as EnvError).problems.map((p) => p.variable).sort();
    expect(variables).toEqual(['REDIS_URL', 'WORKER_CONCURRENCY', 'WORKER_QUEUES']);
    expect((error as EnvError).message).toContain('teapot worker cannot start');
    expect((error as EnvError).message).toContain(
      'WORKER_QUEUES is invalid: unknown webhook; must be all or a comma-separated list of runs, webhooks, analysis, schedule, retention',
    );
  });

  it('refuses an empty queue list rather than starting a worker that does nothing', () => {
    expect(() => loadWorkerEnv({ ...VALID, WORKER_QUEUES: ' , ' })).toThrow(
      /WORKER_QUEUES is invalid: must be all or/,
    );
  });
});
