import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { AUTO_START, WORKER_ENV } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { WebhookProcessor } from './webhooks.processor';
import { WebhookSweeper } from './webhook-sweeper';

/**
 * Runs the outbox sweeper in every process that delivers webhooks (several at once are harmless):
 * listening from boot to shutdown; WebhooksModule's `webhook sweep` chore polls it.
 */
@Injectable()
export class WebhookSweeperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly sweeper: WebhookSweeper;
  private readonly logger = new Logger('WebhookSweeper');

  constructor(
    @Inject(WORKER_ENV) env: WorkerEnv,
    @Inject(AUTO_START) private readonly autoStart: boolean,
    prisma: PrismaService,
    processor: WebhookProcessor,
  ) {
    this.sweeper = new WebhookSweeper({
      db: prisma,
      databaseUrl: env.DATABASE_URL,
      enqueue: (items) => processor.producer.enqueue(items),
      onError: (error) => this.logger.warn(`sweep failed, retrying: ${(error as Error).message}`),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.autoStart) await this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }
}
