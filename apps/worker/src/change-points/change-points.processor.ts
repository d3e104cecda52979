import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { recomputeChangePoints, type Recomputation } from '@teapot/analysis';
import { JOB_NAMES, QUEUE_NAMES, type ChangePointsJobData } from '@teapot/contracts';
import { ChangePointStore } from '@teapot/db';
import { PrismaService } from '../prisma/prisma.service';
import { recordChangePointNews } from './change-point-event';
import { OnJob, QueueProcessor, type QueueProcessorHooks } from '../queues/queue-processor';

/** Recomputations of one job when runs keep finishing while it works (each reads the latest runs). */
const MAX_PASSES = 3;

export interface ChangePointsOutcome {
  passes: number;
  runs: number;
  /** Finished capacity searches read for the capacity and cost series. */
  searches: number;
  stored: number;
  detected: number;
  updated: number;
  retracted: number;
}

/**
 * The `change-points` queue: recomputes the change points of an (endpoint, profile) after its runs and
 * after its capacity searches (their capacity and cost series), off
 * the measuring processes. A run that finishes while its pair's job is running cannot add a job (the
 * id is taken), so the job recomputes again when one did. A change point keeps its row as later runs
 * refine it; its webhook events (`changepoint.detected` once, then `updated` or `retracted`) are written
 * in the same transaction (recordChangePointNews).
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES['change-points'])
export class ChangePointsProcessor implements QueueProcessorHooks {
  private readonly logger = new Logger(ChangePointsProcessor.name);

  private readonly store: ChangePointStore;

  constructor(prisma: PrismaService) {
    this.store = new ChangePointStore(prisma.pool);
  }

  workerOptions() {
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
      const mark = await this.store.now();
      result = await recomputeChangePoints(this.store, pair, { onNews: recordChangePointNews });
      if (passes >= MAX_PASSES || !(await this.store.finishedSince(pair, mark))) break;
    }
    // The pair's capacity searches are a series of their own (a few dozen values: one pass is enough).
    const searches = await recomputeChangePoints(
      this.store,
      pair,
      { onNews: recordChangePointNews },
      'sweeps',
    );
    const detected = [...result.detected, ...searches.detected];
    if (detected.length > 0) {
      this.logger.log(
        `change points of endpoint ${pair.endpointId} profile ${pair.profileId}: ${detected.length} new ` +
          `(${detected.map((c) => `${c.mode} ${c.kind} ${c.metric} ${c.statistic}`).join(', ')})`,
      );
    }
    return {
      passes,
      runs: result.runs,
      searches: searches.runs,
      stored: result.stored + searches.stored,
      detected: detected.length,
      updated: result.updated.length + searches.updated.length,
      retracted: result.retracted.length + searches.retracted.length,
    };
  }
}
