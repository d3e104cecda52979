import {
  JOB_NAMES,
  QUEUE_NAMES,
  QUEUE_OF_JOB,
  type JobName,
  type QueueName,
  type WorkerRole,
} from '@teapot/contracts';

/** A handler found on a provider: which class, which method, which job. */
export interface FoundHandler {
  owner: string;
  method: string;
  queue: QueueName;
  job: string;
}

/** A queue this process consumes and the handler of each of its jobs. */
export interface QueuePlan {
  queue: QueueName;
  /** Job name -> index into the handlers given to planQueues. */
  handlers: Map<JobName, number>;
}

export class QueueHandlerError extends Error {
  constructor(problems: string[]) {
    super(`the worker cannot start: ${problems.join('; ')}`);
    this.name = 'QueueHandlerError';
  }
}

/**
 * Which queues this process consumes, with one handler per job. Refuses (QueueHandlerError, naming
 * every problem) a job name with two handlers, a handler of a job that no queue carries or that
 * sits on another queue's processor, a queue whose handlers sit on two processors, and a
 * configured queue with a job nobody handles.
 */
export function planQueues(roles: readonly WorkerRole[], found: readonly FoundHandler[]): QueuePlan[] {
  const problems: string[] = [];
  const byJob = new Map<string, number[]>();
  found.forEach((handler, index) => {
    const where = `${handler.owner}.${handler.method}`;
    const queueOfJob = (QUEUE_OF_JOB as Record<string, QueueName | undefined>)[handler.job];
    if (queueOfJob === undefined)
      problems.push(`${where} handles job ${handler.job}, which no queue carries`);
    else if (queueOfJob !== handler.queue)
      problems.push(
        `${where} handles job ${handler.job} of queue ${queueOfJob} on a ${handler.queue} processor`,
      );
    byJob.set(handler.job, [...(byJob.get(handler.job) ?? []), index]);
  });
  for (const [job, indexes] of byJob) {
    if (indexes.length > 1) {
      const owners = indexes.map((i) => `${found[i].owner}.${found[i].method}`).join(' and ');
      problems.push(`job ${job} has two handlers: ${owners}`);
    }
  }
  const queues = Object.values(QUEUE_NAMES).filter((queue) => (roles as readonly string[]).includes(queue));
  const plans = queues.map((queue) => {
    const handlers = new Map<JobName, number>();
    for (const job of Object.values(JOB_NAMES).filter((name) => QUEUE_OF_JOB[name] === queue)) {
      const index = byJob.get(job)?.[0];
      if (index === undefined)
        problems.push(`queue ${queue} is configured (WORKER_QUEUES) but job ${job} has no handler`);
      else handlers.set(job, index);
    }
    const owners = [...new Set([...handlers.values()].map((index) => found[index].owner))];
    if (owners.length > 1) problems.push(`queue ${queue} has two processors: ${owners.join(' and ')}`);
    return { queue, handlers };
  });
  if (problems.length > 0) throw new QueueHandlerError(problems);
  return plans;
}
