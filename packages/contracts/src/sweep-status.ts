/** Every status a sweep can have, in the order a sweep moves through them (Prisma's SweepStatus enum). */
export const SWEEP_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'aborted'] as const;
export type SweepStatusName = (typeof SWEEP_STATUSES)[number];

/** A sweep in one of these still has points to measure or an outcome to store. */
export const UNFINISHED_SWEEP_STATUSES = ['queued', 'running'] as const satisfies readonly SweepStatusName[];

/** A sweep's status once it stopped: succeeded (it measured what it was asked), failed, aborted. */
export type FinalSweepStatus = Exclude<SweepStatusName, (typeof UNFINISHED_SWEEP_STATUSES)[number]>;
