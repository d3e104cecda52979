import type { Queue } from 'bullmq';

/** The job states counted, in the order /health and /metrics list them. */
const JOB_STATES = ['waiting', 'delayed', 'active', 'prioritized', 'paused', 'failed', 'completed'] as const;

export type QueueHealth = { queue: string } & Record<(typeof JOB_STATES)[number], number>;

/** Job counts of one queue, for the API's /health detail and the worker's /metrics (teapot_queue_jobs). */
export async function queueHealth(queue: Queue): Promise<QueueHealth> {
  const counts = await queue.getJobCounts(...JOB_STATES);
  const health = { queue: queue.name } as QueueHealth;
  for (const state of JOB_STATES) health[state] = counts[state] ?? 0;
  return health;
}
