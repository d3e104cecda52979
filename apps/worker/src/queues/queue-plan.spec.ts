import { planQueues, QueueHandlerError, type FoundHandler } from './queue-plan';

const runHandler: FoundHandler = { owner: 'RunProcessor', method: 'process', queue: 'runs', job: 'run' };

function problemsOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(QueueHandlerError);
    return (error as Error).message;
  }
  throw new Error('expected planQueues to refuse');
}

describe('planQueues', () => {
  it('gives each configured queue its handler per job and leaves chores and other queues out', () => {
    const other: FoundHandler = { ...runHandler, owner: 'Unused', method: 'x', job: 'nothing' };
    expect(planQueues(['runs', 'schedule'], [runHandler])).toEqual([
      { queue: 'runs', handlers: new Map([['run', 0]]) },
    ]);
    expect(planQueues(['schedule', 'retention'], [runHandler])).toEqual([]);
    expect(() => planQueues(['schedule'], [runHandler, other])).toThrow(/Unused.x handles job nothing/);
  });

  it('refuses a configured queue whose job has no handler', () => {
    expect(problemsOf(() => planQueues(['runs'], []))).toBe(
      'the worker cannot start: queue runs is configured (WORKER_QUEUES) but job run has no handler',
    );
  });

  it('refuses a job with two handlers, even when its queue is not configured here', () => {
    const twice = { ...runHandler, owner: 'OtherProcessor', method: 'handle' };
    expect(problemsOf(() => planQueues(['schedule'], [runHandler, twice]))).toContain(
      'job run has two handlers: RunProcessor.process and OtherProcessor.handle',
    );
  });

  it("refuses a handler on another queue's processor", () => {
    const misplaced = { ...runHandler, queue: 'webhooks' } as unknown as FoundHandler;
    expect(problemsOf(() => planQueues(['runs'], [misplaced]))).toContain(
      'RunProcessor.process handles job run of queue runs on a webhooks processor',
    );
  });
});
