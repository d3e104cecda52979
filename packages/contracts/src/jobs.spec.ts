import { JOB_NAMES, QUEUE_NAMES, QUEUE_OF_JOB, WORKER_ROLES, type JobOf, type RunJobData } from './jobs';

describe('queues and jobs', () => {
  it('derives each name table from the one queue declaration', () => {
    expect(QUEUE_NAMES).toEqual({
      runs: 'runs',
      webhooks: 'webhooks',
      analysis: 'analysis',
      'change-points': 'change-points',
      sweeps: 'sweeps',
    });
    expect(Object.keys(JOB_NAMES)).toEqual(Object.keys(QUEUE_OF_JOB));
    for (const [job, name] of Object.entries(JOB_NAMES)) expect(name).toBe(job);
    expect(QUEUE_OF_JOB).toMatchObject({
      run: 'runs',
      deliver: 'webhooks',
      'verify-deployment': 'analysis',
      'advance-sweep': 'sweeps',
    });
  });

  it('names every queue a worker role', () => {
    for (const queue of Object.values(QUEUE_NAMES)) expect(WORKER_ROLES).toContain(queue);
    const payload: JobOf<'run'> = { runId: 'r' } satisfies RunJobData;
    expect(payload.runId).toBe('r');
  });
});
