import type { Queue } from 'bullmq';

export interface QueueHealth {
  queue: string;
  waiting: number;
  delayed: number;
  active: number;
  prioritized: number;
  paused: number;
  failed: number;
  completed: number;
}

/** Job counts of one queue, for the API's /health detail and the worker's /metrics (teapot_queue_jobs). */
export async function queueHealth(queue: Queue): Promise<QueueHealth> {
  const counts = await queue.getJobCounts(
    'waiting',
    'delayed',
    'active',
    'prioritized',
    'paused',
    'failed',
    'completed',
  );
  return {
    queue: queue.name,
    waiting: counts.waiting ?? 0,
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
    prioritized: counts.prioritized ?? 0,
    paused: counts.paused ?? 0,
    failed: counts.failed ?? 0,
    completed: counts.completed ?? 0,
  };
}
