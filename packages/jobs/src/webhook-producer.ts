import { JOB_NAMES, QUEUE_NAMES, type WebhookJobData } from '@teapot/contracts';
import { WEBHOOK_JOB_OPTIONS, webhookJobId } from './options';
import { QueueProducer, type QueueProducerOptions } from './queue-producer';

/** One delivery attempt to queue, runnable from `dueAt`. */
export interface WebhookAttemptRequest {
  deliveryId: string;
  attempt: number;
  dueAt: Date;
}

/**
 * Puts delivery attempts on the `webhooks` queue (the sweeper and the deliverer's retries). Job id
 * `<deliveryId>@<attempt>`: adding an attempt already queued is a no-op.
 */
export class WebhookQueueProducer extends QueueProducer<WebhookJobData> {
  constructor(options: QueueProducerOptions) {
    super(QUEUE_NAMES.webhooks, options, WEBHOOK_JOB_OPTIONS);
  }

  async enqueue(requests: readonly WebhookAttemptRequest[]): Promise<void> {
    if (requests.length === 0) return;
    // One timestamp for each job and its delay, so it becomes runnable exactly at dueAt.
    const now = Date.now();
    await this.queue.addBulk(
      requests.map((request) => ({
        name: JOB_NAMES.deliver,
        data: { deliveryId: request.deliveryId, attempt: request.attempt },
        opts: {
          jobId: webhookJobId(request.deliveryId, request.attempt),
          timestamp: now,
          delay: Math.max(0, request.dueAt.getTime() - now),
        },
      })),
    );
  }
}
