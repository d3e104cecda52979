import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkerEnv } from '@teapot/config';
import type { QueueName } from '@teapot/contracts';
import { AUTO_START, WORKER_ENV } from '../env/worker-env';
import { RedisService } from '../redis/redis.service';
import { planQueues, type FoundHandler, type QueuePlan } from './queue-plan';
import { OnJob, QueueProcessor, type JobHandler, type QueueProcessorHooks } from './queue-processor';

/** After the grace, how long stopped jobs may take to wind down before their Worker is closed by force. */
const WIND_DOWN_MS = 5_000;

interface Discovered extends FoundHandler {
  processor: QueueProcessorHooks;
  handle: JobHandler;
}

interface Running {
  queue: QueueName;
  worker: Worker;
  connection: Redis;
  processor: QueueProcessorHooks;
}

/**
 * One BullMQ Worker per queue named in WORKER_QUEUES, dispatching each job by name to its
 * `@OnJob` handler. The handlers are found on `@QueueProcessor` providers at module init, and the
 * worker refuses to start when a configured queue has a job without a handler or a job has two.
 * Shutdown: no new jobs, SHUTDOWN_GRACE_MS for running ones, then they are told to stop.
 */
@Injectable()
export class QueueWorkers implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkers.name);
  private plans: Array<{ plan: QueuePlan; found: Discovered[] }> = [];
  private readonly running: Running[] = [];

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(AUTO_START) private readonly autoStart: boolean,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly redis: RedisService,
  ) {}

  /** Queues this process consumes (started or not). */
  get queues(): QueueName[] {
    return this.plans.map(({ plan }) => plan.queue);
  }

  onModuleInit(): void {
    const found = this.discover();
    this.plans = planQueues(this.env.WORKER_QUEUES, found).map((plan) => ({ plan, found }));
  }

  onApplicationBootstrap(): void {
    if (this.autoStart) for (const { plan, found } of this.plans) this.start(plan, found);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.running.splice(0).map((running) => this.close(running)));
  }

  private discover(): Discovered[] {
    const found: Discovered[] = [];
    for (const wrapper of this.discovery.getProviders({ metadataKey: QueueProcessor.KEY })) {
      const instance = wrapper.instance as (QueueProcessorHooks & Record<string, unknown>) | undefined;
      const queue = this.discovery.getMetadataByDecorator(QueueProcessor, wrapper);
      if (!instance || !queue) continue;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const job = this.discovery.getMetadataByDecorator(OnJob, wrapper, method);
        if (!job) continue;
        const handle = (instance[method] as JobHandler).bind(instance);
        found.push({ owner: wrapper.name as string, method, queue, job, processor: instance, handle });
      }
    }
    return found;
  }

  private start(plan: QueuePlan, found: Discovered[]): void {
    const handlers = new Map([...plan.handlers].map(([job, index]) => [job as string, found[index].handle]));
    // planQueues guarantees one processor per queue.
    const processor = found[[...plan.handlers.values()][0]].processor;
    const connection = this.redis.dedicatedConnection(plan.queue);
    const worker = new Worker(
      plan.queue,
      (job: Job, token?: string) => {
        const handle = handlers.get(job.name);
        if (!handle) throw new UnrecoverableError(`queue ${plan.queue} has no handler for job ${job.name}`);
        return handle(job, token);
      },
      {
        ...processor.workerOptions?.(),
        connection,
        prefix: this.redis.prefix,
        name: this.env.WORKER_ID,
      },
    );
    worker.on('error', (error) => this.logger.warn(`queue ${plan.queue}: worker error: ${error.message}`));
    worker.on('failed', (job, error) => void this.failed(plan.queue, processor, job, error));
    this.running.push({ queue: plan.queue, worker, connection, processor });
  }

  /** Only a job that will not be retried reaches the processor; a hook that fails is logged, not lost. */
  private async failed(
    queue: QueueName,
    processor: QueueProcessorHooks,
    job: Job | undefined,
    error: Error,
  ): Promise<void> {
    if (!job || !processor.onJobFailed) return;
    try {
      // A job that will be retried is `delayed` or `waiting` now; only a finally failed one matters.
      if ((await job.getState()) !== 'failed') return;
      await processor.onJobFailed(job, error);
    } catch (hookError) {
      this.logger.error(
        `queue ${queue}: job ${job.id} failed for good (${error.message}) and recording it failed: ${hookError instanceof Error ? hookError.message : String(hookError)}`,
      );
    }
  }

  private async close({ worker, connection, processor }: Running): Promise<void> {
    const graceMs = this.env.SHUTDOWN_GRACE_MS;
    processor.onClosing?.();
    const graceTimer = setTimeout(() => processor.onGraceOver?.(), graceMs);
    const drained = worker.close().then(() => true);
    // A referenced timer also keeps the process alive until the jobs are stored.
    let windDownTimer: NodeJS.Timeout | undefined;
    const woundDown = new Promise<boolean>((resolve) => {
      windDownTimer = setTimeout(() => resolve(false), graceMs + WIND_DOWN_MS);
    });
    try {
      if (!(await Promise.race([drained, woundDown]))) {
        await processor.onDrainTimeout?.();
        await worker.close(true);
      }
    } finally {
      clearTimeout(graceTimer);
      clearTimeout(windDownTimer);
      await connection.quit().catch(() => connection.disconnect());
    }
  }
}
