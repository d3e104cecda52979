/** Every BullMQ queue teapot uses; the API and the worker import names from here only. */
export const QUEUE_NAMES = {
  runs: 'runs',
  analysis: 'analysis',
  webhooks: 'webhooks',
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** Job names inside each queue (BullMQ wants one per job; a queue carries one kind of job). */
export const JOB_NAMES = {
  run: 'run',
} as const;

/** Payload of a `runs` job: the Run row holds everything else (profile snapshot, endpoint). */
export interface RunJobData {
  runId: string;
}
