import { WORKER_DEFAULTS } from '@teapot/jobs';
import { afterStoreFailure, jobFailureOf, STALLED_LIMIT_REASON } from './run-outcome';

describe('jobFailureOf', () => {
  it('calls a job that stalled past the limit a lost worker, counting the deaths', () => {
    const stalls = WORKER_DEFAULTS.maxStalledCount + 1;
    const failure = jobFailureOf(
      { stalledCounter: stalls, attemptsMade: 1 },
      new Error(STALLED_LIMIT_REASON),
    );
    expect(failure.errorClass).toBe('worker_lost');
    expect(failure.reason).toMatch(new RegExp(`^the worker measuring this run died ${stalls} times`));
    expect(failure.reason).not.toContain('failed 1 times');
  });

  it('keeps any other failure apart as teapot failing to run it', () => {
    const failure = jobFailureOf({ stalledCounter: 0, attemptsMade: 3 }, new Error('connect ECONNREFUSED'));
    expect(failure).toEqual({
      errorClass: 'internal',
      reason: 'the run job failed 3 times: connect ECONNREFUSED',
    });
  });
});

describe('afterStoreFailure', () => {
  it('measures the run again while the database is away or the pool had no connection in time', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const poolWait = new Error('timeout exceeded when trying to connect');
    expect(afterStoreFailure(refused)).toBe('measure_again');
    expect(afterStoreFailure(new Error('wrapped', { cause: poolWait }))).toBe('measure_again');
  });

  it('ends the run when the write can never succeed', () => {
    expect(afterStoreFailure(new Error('column "x" does not exist'))).toBe('end_run');
    expect(afterStoreFailure(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe('end_run');
  });
});
