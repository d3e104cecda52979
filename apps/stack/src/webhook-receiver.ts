import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookBody } from '@teapot/contracts';
import { verify } from '@teapot/webhooks';

/** One delivery as a receiver sees it, and whether its Standard Webhooks signature verified. */
export interface ReceivedWebhook {
  /** The `webhook-id` header (the same on every retry of one message). */
  id: string;
  receivedAt: Date;
  /** The `webhook-signature` header as sent. */
  signature: string;
  signatureOk: boolean;
  /** Why verification failed, when it did. */
  error?: string;
  /** The parsed body; null when it was not JSON. */
  body: WebhookBody | null;
}

/**
 * A webhook receiver on this machine's loopback, as a user would write one: it verifies every
 * delivery with `verify` from @teapot/webhooks (the subscription's secret, set once the subscription
 * exists, since its URL has to exist first) and answers 204 whether or not it verified, so teapot
 * never retries a message the receiver already has.
 */
export class LocalWebhookReceiver {
  secret: string | null = null;
  readonly received: ReceivedWebhook[] = [];
  private readonly waiters = new Set<() => void>();

  private readonly server: Server;
  private address = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.accept(req.headers, Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
  }

  /** `http://127.0.0.1:PORT/teapot-webhooks`. */
  get url(): string {
    return this.address;
  }

  static async start(): Promise<LocalWebhookReceiver> {
    const receiver = new LocalWebhookReceiver();
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = receiver.server.address() as AddressInfo;
    receiver.address = `http://127.0.0.1:${port}/teapot-webhooks`;
    return receiver;
  }

  /** Resolves with the first delivery `match` accepts (already received or yet to come). */
  async next(match: (webhook: ReceivedWebhook) => boolean, signal: AbortSignal): Promise<ReceivedWebhook> {
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (signal.aborted) throw new Error('stopped waiting for a webhook');
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  close(): Promise<void> {
    for (const wake of [...this.waiters]) wake();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(headers: Record<string, string | string[] | undefined>, raw: string): void {
    let body: WebhookBody | null = null;
    try {
      body = JSON.parse(raw) as WebhookBody;
    } catch {
      // Kept as unparsed: the signature check below still says whether teapot sent it.
    }
    const webhook: ReceivedWebhook = {
      id: String(headers['webhook-id'] ?? ''),
      receivedAt: new Date(),
      signature: String(headers['webhook-signature'] ?? ''),
      signatureOk: false,
      body,
    };
    try {
      if (!this.secret) throw new Error('no subscription secret yet');
      verify(this.secret, headers, raw);
      webhook.signatureOk = true;
    } catch (error) {
      webhook.error = error instanceof Error ? error.message : String(error);
    }
    this.received.push(webhook);
    for (const wake of [...this.waiters]) wake();
  }
}
