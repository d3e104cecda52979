import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { recomputeChangePoints, type Recomputation } from '@teapot/analysis';
import { JOB_NAMES, MEASURED_RUN_STATUSES, QUEUE_NAMES, type ChangePointsJobData } from '@teapot/contracts';
import { PrismaService } from '../prisma/prisma.service';
import { recordChangePointEvent } from './change-point-event';
import {
  OnJob,
  QueueProcessor,
  type QueueProcessorHooks,
  type QueueWorkerOptions,
} from '../queues/queue-processor';

/** Recomputations of one job when runs keep finishing while it works (each reads the latest runs). */
const MAX_PASSES = 3;

export interface ChangePointsOutcome {
  passes: number;
  runs: number;
  stored: number;
  detected: number;
  removed: number;
}

/**
 * The `change-points` queue: recomputes the change points of an (endpoint, profile) after its runs, off
 * the measuring processes. A run that finishes while its pair's job is running cannot add a job (the
 * id is taken), so the job recomputes again when one did. A new change point of a scheduled series
 * with no deployment near it becomes a `changepoint.detected` webhook event in the same transaction.
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES['change-points'])
export class ChangePointsProcessor implements QueueProcessorHooks {
  private readonly logger = new Logger(ChangePointsProcessor.name);

  constructor(private readonly prisma: PrismaService) {}

  workerOptions(): QueueWorkerOptions {
    // A recomputation is CPU for a fraction of a second per pair: one at a time per process.
    return { concurrency: 1 };
  }

  @OnJob(JOB_NAMES['change-points'])
  async changePoints(job: Job<ChangePointsJobData>): Promise<ChangePointsOutcome> {
    const pair = { endpointId: job.data.endpointId, profileId: job.data.profileId };
    let passes = 0;
    let result: Recomputation;
    for (;;) {
      passes++;
      const mark = await this.now();
      result = await recomputeChangePoints(this.prisma.pool, pair, { onDetected: recordChangePointEvent });
      if (passes >= MAX_PASSES || !(await this.finishedSince(pair, mark))) break;
    }
    if (result.detected.length > 0) {
      this.logger.log(
        `change points of endpoint ${pair.endpointId} profile ${pair.profileId}: ${result.detected.length} new ` +
          `(${result.detected.map((c) => `${c.mode} ${c.kind} ${c.metric} ${c.statistic}`).join(', ')})`,
      );
    }
    return {
      passes,
      runs: result.runs,
      stored: result.stored,
      detected: result.detected.length,
      removed: result.removed,
    };
  }

  private async now(): Promise<Date> {
    const { rows } = await this.prisma.pool.query<{ now: Date }>('SELECT now()');
    return rows[0].now;
  }

  private async finishedSince(pair: ChangePointsJobData, mark: Date): Promise<boolean> {
    const { rows } = await this.prisma.pool.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM runs WHERE endpoint_id = $1 AND profile_id = $2
                         AND status::text = ANY($3) AND finished_at >= $4) AS found`,
      [pair.endpointId, pair.profileId, MEASURED_RUN_STATUSES, mark],
    );
    return rows[0].found;
  }
}
