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

/** Job counts of one queue, for the API's /health detail and the worker's /metrics. */
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

/** Prometheus text lines (gauge `teapot_queue_jobs{queue,state}`) for several queues. */
export function queueHealthPrometheus(healths: QueueHealth[]): string {
  const lines = [
    '# HELP teapot_queue_jobs Jobs in a BullMQ queue by state.',
    '# TYPE teapot_queue_jobs gauge',
  ];
  for (const health of healths) {
    for (const [state, count] of Object.entries(health)) {
      if (state === 'queue') continue;
      lines.push(`teapot_queue_jobs{queue="${health.queue}",state="${state}"} ${count}`);
    }
  }
  return lines.join('\n') + '\n';
}
