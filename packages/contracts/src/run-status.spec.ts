import {
  FINAL_RUN_STATUSES,
  isFinalRunStatus,
  MEASURED_RUN_STATUSES,
  RUN_STATUSES,
  UNFINISHED_RUN_STATUSES,
} from './run-status';

describe('run statuses', () => {
  it('calls exactly the statuses after running final', () => {
    expect(RUN_STATUSES.filter((status) => isFinalRunStatus(status))).toEqual([...FINAL_RUN_STATUSES]);
    expect(isFinalRunStatus('queued')).toBe(false);
    expect(isFinalRunStatus('running')).toBe(false);
    expect(isFinalRunStatus('done')).toBe(false);
  });

  it('splits every status into unfinished or final, and counts only final ones as measured', () => {
    expect([...UNFINISHED_RUN_STATUSES, ...FINAL_RUN_STATUSES]).toEqual([...RUN_STATUSES]);
    expect(MEASURED_RUN_STATUSES.every((status) => isFinalRunStatus(status))).toBe(true);
    expect(MEASURED_RUN_STATUSES).not.toContain('aborted');
  });
});
