import { FINAL_RUN_STATUSES, isFinalRunStatus, RUN_STATUSES } from './run-status';

describe('run statuses', () => {
  it('calls exactly the statuses after running final', () => {
    expect(RUN_STATUSES.filter((status) => isFinalRunStatus(status))).toEqual([...FINAL_RUN_STATUSES]);
    expect(isFinalRunStatus('queued')).toBe(false);
    expect(isFinalRunStatus('running')).toBe(false);
    expect(isFinalRunStatus('done')).toBe(false);
  });
});
