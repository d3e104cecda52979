/** Payload of a `runs` job: the Run row holds everything else (profile snapshot, endpoint). */
export interface RunJobData {
  runId: string;
}

/** Payload of an `analysis` job `verify-deployment`: compares the deployment's runs with its baseline. */
export interface VerifyDeploymentJobData {
  deploymentId: string;
}

/**
 * Payload of a `webhooks` job: attempt `attempt` (1-based) of one delivery. The delivery row holds
 * the rest; a job whose attempt was already recorded is a no-op, so a re-added job never sends twice.
 */
export interface WebhookJobData {
  deliveryId: string;
  attempt: number;
}

/**
 * Payload of a `change-points` job: recompute every change-point series of one (endpoint, profile)
 * from its latest runs. One job id per pair, so a burst of runs makes one job.
 */
export interface ChangePointsJobData {
  endpointId: string;
  profileId: string;
}

/** A job's payload type, carried by a value so that the queue table below is the one declaration. */
const payload = <Data>(): Data => undefined as Data;

/**
 * Payload of a `sweeps` job `advance-sweep`: look at the sweep's points and take its next step (measure
 * the next point, or store the outcome). Idempotent: the sweep and its runs are the truth.
 */
export interface AdvanceSweepJobData {
  sweepId: string;
}

/**
 * Every queue, the jobs it carries and each job's payload: producers and handlers are typed from
 * here, so a payload cannot drift between the API and the worker, and the name tables below are
 * derived from it. Job names are unique across queues. A new queue is one entry here, then a worker
 * module with its processor (apps/worker/README.md, "Adding a queue").
 */
const QUEUES = {
  runs: { run: payload<RunJobData>() },
  webhooks: { deliver: payload<WebhookJobData>() },
  analysis: { 'verify-deployment': payload<VerifyDeploymentJobData>() },
  'change-points': { 'change-points': payload<ChangePointsJobData>() },
  sweeps: { 'advance-sweep': payload<AdvanceSweepJobData>() },
};

export type QueueJobs = typeof QUEUES;
export type QueueName = keyof QueueJobs;
/** The job names of queue `Q` (of every queue by default). */
export type JobName<Q extends QueueName = QueueName> = { [K in Q]: Extract<keyof QueueJobs[K], string> }[Q];
/** The payload of job `N`. */
export type JobOf<N extends JobName> = {
  [Q in QueueName]: N extends keyof QueueJobs[Q] ? QueueJobs[Q][N] : never;
}[QueueName];
/** The queue that carries job `N`. */
export type QueueOf<N extends JobName> = {
  [Q in QueueName]: N extends keyof QueueJobs[Q] ? Q : never;
}[QueueName];

const queueJobPairs = (Object.keys(QUEUES) as QueueName[]).flatMap((queue) =>
  Object.keys(QUEUES[queue]).map((job) => [job, queue] as const),
);
if (new Set(queueJobPairs.map(([job]) => job)).size !== queueJobPairs.length)
  throw new Error('a job name is carried by two queues: job names must be unique across queues');

export const QUEUE_NAMES = Object.fromEntries(Object.keys(QUEUES).map((queue) => [queue, queue])) as {
  readonly [Q in QueueName]: Q;
};
export const JOB_NAMES = Object.fromEntries(queueJobPairs.map(([job]) => [job, job])) as {
  readonly [N in JobName]: N;
};
/** Which queue carries each job, as a value (for handler discovery and checks at start). */
export const QUEUE_OF_JOB = Object.fromEntries(queueJobPairs) as { readonly [N in JobName]: QueueOf<N> };

/**
 * What WORKER_QUEUES may name, and what `all` means: the queues apps/worker consumes and its
 * chores (periodic work without a queue). A queue joins this list when its worker module does
 * (ROLE_MODULES in apps/worker/src/worker.module.ts); until then producers may fill it, no worker
 * takes its jobs.
 */
export const WORKER_ROLES = [
  'runs',
  'webhooks',
  'analysis',
  'schedule',
  'retention',
  'change-points',
  'sweeps',
] as const satisfies readonly (QueueName | 'schedule' | 'retention')[];
export type WorkerRole = (typeof WORKER_ROLES)[number];
