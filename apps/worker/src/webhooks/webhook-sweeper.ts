import { deliveriesToQueue, markDeliveriesQueued, WEBHOOK_OUTBOX_CHANNEL, type Database } from '@teapot/db';
import { Client } from 'pg';
import type { DeliveryToQueue } from '@teapot/db';

export interface WebhookSweeperOptions {
  db: Pick<Database, 'pool'>;
  databaseUrl: string;
  /** Adds the attempts' jobs (idempotent per delivery and attempt). */
  enqueue(items: readonly DeliveryToQueue[]): Promise<void>;
  onError(error: unknown): void;
}

/**
 * Queues what the outbox wrote but nobody queued: new deliveries from `recordEvent`, and retries
 * whose worker died between recording an attempt and queueing the next. Woken at once by the
 * outbox's NOTIFY (sent on commit) and by `poll()` regardless (the `webhook sweep` chore), so a lost
 * notification (a listener reconnecting, a restart) only delays a delivery. Several sweepers at once
 * are harmless.
 */
export class WebhookSweeper {
  private listener: Client | null = null;
  private listening: Promise<void> | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly options: WebhookSweeperOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
    this.wake();
  }

  /** The periodic pass: listens again if the listener was lost, then sweeps. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    await this.listen();
    this.wake();
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listening;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.running?.catch(() => undefined);
  }

  /** One pass; returns how many deliveries were queued. */
  async sweep(): Promise<number> {
    let queued = 0;
    for (;;) {
      const due = await deliveriesToQueue(this.options.db, { limit: 500 });
      if (due.length === 0) return queued;
      await this.options.enqueue(due);
      queued += await markDeliveriesQueued(this.options.db, due);
      if (due.length < 500) return queued;
    }
  }

  /** Sweeps now, or right after the pass in progress (a notification during a pass is not lost). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sweep()
      .catch((error: unknown) => {
        this.options.onError(error);
        return 0;
      })
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Connects the LISTEN client unless it is connected or connecting; a failure is reported, not thrown. */
  private listen(): Promise<void> {
    if (this.listener || this.stopped) return Promise.resolve();
    this.listening ??= this.connect()
      .catch((error: unknown) => this.options.onError(error))
      .finally(() => {
        this.listening = null;
      });
    return this.listening;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl });
    client.on('notification', () => this.wake());
    client.on('error', (error) => {
      this.options.onError(error);
      if (this.listener === client) this.listener = null;
      void client.end().catch(() => undefined);
    });
    await client.connect();
    await client.query(`LISTEN ${WEBHOOK_OUTBOX_CHANNEL}`);
    if (this.stopped) {
      await client.end();
      return;
    }
    this.listener = client;
  }
}
