import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { verifyDeployment } from '@teapot/analysis';
import type { WorkerEnv } from '@teapot/config';
import {
  JOB_NAMES,
  QUEUE_NAMES,
  type DeploymentVerification,
  type VerifyDeploymentJobData,
} from '@teapot/contracts';
import { analysisStores, Prisma, recordEvent, type AnalysisStores, type Deployment } from '@teapot/db';
import { CLOCK, WORKER_ENV, type Clock } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { OnJob, QueueProcessor, type QueueProcessorHooks } from '../queues/queue-processor';
import { RunTelemetry } from '../telemetry/run-telemetry';
import { deploymentEvent } from './deployment-event';

export interface VerifyDeploymentOutcome {
  deploymentId: string;
  verdict: string;
  note?: string;
}

/**
 * The `analysis` queue's `verify-deployment` job. It waits for the deployment's runs by moving itself
 * back to delayed (no attempt spent) every DEPLOYMENT_POLL_MS; once they are final it compares them
 * with the baseline and, in ONE transaction, stores the verdict (only if none is stored yet, so a
 * retried or doubled job changes nothing) and records the webhook event through the outbox. A
 * worker killed after that commit loses nothing: the webhooks sweeper delivers what the outbox holds.
 */
@Injectable()
@QueueProcessor(QUEUE_NAMES.analysis)
export class DeploymentVerifier implements QueueProcessorHooks {
  private readonly logger = new Logger(DeploymentVerifier.name);

  private readonly stores: AnalysisStores;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly prisma: PrismaService,
    private readonly telemetry: RunTelemetry,
  ) {
    this.stores = analysisStores(prisma.pool);
  }

  workerOptions() {
    return { concurrency: 2 };
  }

  @OnJob(JOB_NAMES['verify-deployment'])
  async verify(job: Job<VerifyDeploymentJobData>, token?: string): Promise<VerifyDeploymentOutcome> {
    const { deploymentId } = job.data;
    const deployment = await this.prisma.deployment.findUnique({ where: { id: deploymentId } });
    if (!deployment) throw new UnrecoverableError(`deployment ${deploymentId} no longer exists`);
    if (deployment.verdict) return { deploymentId, verdict: deployment.verdict, note: 'already verified' };
    const progress = await verifyDeployment(this.stores, deployment);
    if (progress.state === 'measuring') {
      await job.moveToDelayed(this.clock.now() + this.env.DEPLOYMENT_POLL_MS, token);
      throw new DelayedError();
    }
    const stored = await this.store(deployment, progress.verification);
    if (stored) this.telemetry.deploymentVerified(deployment, progress.verification);
    this.logger.log(
      `deployment ${deploymentId} (${deployment.label}): ${progress.verification.verdict}${stored ? '' : ' (already stored by another attempt)'}`,
    );
    return { deploymentId, verdict: progress.verification.verdict };
  }

  /** The verdict and its webhook event commit together, once: false when another attempt stored it first. */
  private async store(deployment: Deployment, verification: DeploymentVerification): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.deployment.updateMany({
        where: { id: deployment.id, verdict: null },
        data: {
          verdict: verification.verdict,
          verification: verification as unknown as Prisma.InputJsonObject,
          verifiedAt: new Date(this.clock.now()),
        },
      });
      if (updated.count === 0) return false;
      const event = deploymentEvent(deployment, verification);
      if (event) await recordEvent(tx, event);
      return true;
    });
  }
}
