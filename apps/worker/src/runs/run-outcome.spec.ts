import { WORKER_DEFAULTS } from '@teapot/jobs';
import { jobFailureOf, STALLED_LIMIT_REASON } from './run-outcome';

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
