import { DiscoveryService } from '@nestjs/core';
import type { Job, WorkerOptions } from 'bullmq';
import type { JobName, QueueName } from '@teapot/contracts';

/** Marks a provider as the processor of one queue; its jobs' handlers are its `@OnJob` methods. */
export const QueueProcessor = DiscoveryService.createDecorator<QueueName>();

/** Marks a processor method as the handler of one job name: `(job, token) => Promise<result>`. */
export const OnJob = DiscoveryService.createDecorator<JobName>();

/** The BullMQ Worker options a processor may set (connection, prefix and name are the worker's). */
export type QueueWorkerOptions = Pick<
  WorkerOptions,
  'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'
>;

/** What a `@QueueProcessor` class may implement besides its handlers; every hook is optional. */
export interface QueueProcessorHooks {
  /** Options of this queue's Worker, usually from the environment. */
  workerOptions?(): QueueWorkerOptions;
  /** A job BullMQ will not retry any more (out of attempts, or stalled too often). */
  onJobFailed?(job: Job, error: Error): Promise<void>;
  /** Shutdown began: jobs fetched from now on are to be handed back, not started. */
  onClosing?(): void;
  /** The shutdown grace is over: stop the jobs still running, so they can be stored as stopped. */
  onGraceOver?(): void;
  /** The jobs did not wind down even after onGraceOver; the Worker is closed by force next. */
  onDrainTimeout?(): Promise<void>;
}

export type JobHandler = (job: Job, token?: string) => Promise<unknown>;
