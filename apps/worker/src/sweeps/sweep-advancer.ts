import { Injectable, Logger } from '@nestjs/common';
import { SweepStore } from '@teapot/db';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';
import { planSweep } from './sweep-plan';

/** What one advance did (kept on the completed job for a while, for inspection). */
export interface AdvanceOutcome {
  sweepId: string;
  step: 'missing' | 'finished' | 'waiting' | 'measuring' | 'ended';
  /** The point queued (`measuring`) or waited for (`waiting`). */
  index?: number;
  runId?: string;
  note?: string;
}

/**
 * Takes a sweep's next step: the sweep row and its point runs are the truth, so any number of
 * advances of one sweep, at once or repeated, insert each point's run once (unique sweep_id,
 * sweep_index) and store the outcome once.
 */
@Injectable()
export class SweepAdvancer {
  private readonly logger = new Logger(SweepAdvancer.name);
  readonly store: SweepStore;

  constructor(
    prisma: PrismaService,
    private readonly redis: RedisService,
  ) {
    this.store = new SweepStore(prisma.pool);
  }

  async advance(sweepId: string): Promise<AdvanceOutcome> {
    const sweep = await this.store.withPoints(sweepId);
    if (!sweep) return { sweepId, step: 'missing' };
    if (sweep.status !== 'queued' && sweep.status !== 'running') {
      return { sweepId, step: 'finished', note: `already ${sweep.status}` };
    }
    if (sweep.status === 'queued') await this.store.start(sweepId);
    const action = planSweep(sweep);
    switch (action.kind) {
      case 'wait':
        // A point whose run job was lost between its insert and its enqueue gets it here (same job id).
        if (action.run.status === 'queued') await this.redis.runs.enqueueRun(action.run.runId);
        return { sweepId, step: 'waiting', index: action.run.index, runId: action.run.runId };
      case 'measure': {
        const { runId, created } = await this.store.insertPointRun({
          sweepId,
          index: action.index,
          snapshot: action.snapshot,
        });
        await this.redis.runs.enqueueRun(runId);
        if (created)
          this.logger.log(`sweep ${sweepId}: point ${action.index} at ${action.value} queued (run ${runId})`);
        return { sweepId, step: 'measuring', index: action.index, runId };
      }
      case 'finish': {
        const { outcome } = action;
        if (await this.store.finish(sweepId, outcome)) {
          const capacity = outcome.capacity != null ? `, capacity ${outcome.capacity}` : '';
          this.logger.log(
            `sweep ${sweepId} ${outcome.status} (${outcome.stopReason ?? 'not run'}${capacity})${outcome.error ? `: ${outcome.error}` : ''}`,
          );
          // Only a capacity search that found a capacity adds a value (a list of points is no search,
          // even when it names the highest point that met its SLO).
          const search = (sweep.spec as { kind?: unknown } | null)?.kind === 'capacity';
          if (search && outcome.status === 'succeeded' && outcome.capacity != null && sweep.profileId)
            await this.queueAnalysis(sweepId, { endpointId: sweep.endpointId, profileId: sweep.profileId });
        }
        return { sweepId, step: 'ended', note: `${outcome.status} ${outcome.stopReason ?? ''}`.trim() };
      }
    }
  }

  /**
   * A finished capacity search is the next value of its pair's capacity and cost series: their change
   * points are recomputed on the `change-points` queue. The sweep is stored whatever happens here; a
   * failure to queue is logged, and the pair's next run or search queues it again.
   */
  private async queueAnalysis(
    sweepId: string,
    pair: { endpointId: string; profileId: string },
  ): Promise<void> {
    try {
      await this.redis.changePoints.enqueueChangePoints(pair);
    } catch (error) {
      this.logger.warn(
        `sweep ${sweepId}: change points not queued: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
