import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { CLOCK, WORKER_ENV, type Clock } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';
import { jobFailureOf } from './run-outcome';
import { RunRepository } from './run-repository';

export interface ReapReport {
  /** `running` runs whose job is gone or finished: ended as aborted. */
  aborted: number;
  /** `queued` runs whose job is gone: enqueued again. */
  requeued: number;
  /** Runs whose job failed for good: ended as failed, with the job's cause. */
  failed: number;
}

/** A queued run is left to the scheduler and API for this long before its job is checked. */
const QUEUED_GRACE_MS = 60_000;
const BATCH = 500;

/**
 * Repairs runs whose job no longer matches them: a worker that died after its job was removed (or
 * failed for good) leaves a run `running`; a producer that died between the insert and the enqueue
 * leaves one `queued` without a job. Runs whose job is waiting, delayed or active are left alone.
 * Runs at boot and every REAPER_INTERVAL_MS in processes that consume the `runs` queue (RunsModule).
 */
@Injectable()
export class RunReaper {
  private readonly logger = new Logger(RunReaper.name);

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
    private readonly runs: RunRepository,
  ) {}

  async reap(nowMs: number = this.clock.now()): Promise<ReapReport> {
    const report: ReapReport = { aborted: 0, requeued: 0, failed: 0 };
    const runs = await this.prisma.run.findMany({
      where: {
        OR: [
          { status: 'running', startedAt: { lt: new Date(nowMs - this.env.WORKER_LOCK_DURATION_MS) } },
          { status: 'queued', queuedAt: { lt: new Date(nowMs - QUEUED_GRACE_MS) } },
        ],
      },
      select: { id: true, status: true, slotKey: true, attempts: true, workerId: true },
      orderBy: { queuedAt: 'asc' },
      take: BATCH,
    });
    for (const run of runs) {
      const jobId = run.slotKey ?? run.id;
      const job = await this.redis.runs.queue.getJob(jobId);
      const state = job ? await job.getState() : 'missing';
      if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized')
        continue;
      if (state === 'failed' && job) {
        // The processor's failed hook ends such runs; this covers a worker that died before it could.
        const failure = jobFailureOf(job, { message: job.failedReason ?? 'unknown reason' });
        if (await this.runs.endUnmeasured(run, 'failed', failure.reason, failure.errorClass)) report.failed++;
      } else if (run.status === 'running') {
        const reason = `aborted: worker ${run.workerId ?? '?'} stopped mid-run and the run's job is ${state}`;
        if (await this.runs.endUnmeasured(run, 'aborted', reason, 'worker_lost')) report.aborted++;
      } else if (state === 'completed') {
        if (await this.runs.endUnmeasured(run, 'aborted', 'its job ended without running it', 'internal'))
          report.aborted++;
      } else {
        await this.redis.runs.enqueueRun(run.id, { jobId });
        report.requeued++;
      }
    }
    if (report.aborted + report.requeued + report.failed > 0) {
      this.logger.warn(
        `reaper: ${report.aborted} stale running run(s) aborted, ${report.requeued} queued run(s) without a job re-enqueued, ${report.failed} failed`,
      );
    }
    return report;
  }
}
