import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptSecret } from '@teapot/config';
import type { WebhookEventType, WebhookPayloadFormat } from '@teapot/contracts';
import { generateSecret } from '@teapot/webhooks';
import type { TestWorld } from './world';

export interface ReceivedWebhook {
  /** Arrival time, Unix ms. */
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as received (what a receiver verifies). */
  body: string;
}

/** How the receiver answers one request: a status (with headers and body), or no answer at all. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`; deliveries to any path are recorded. */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Decides each answer (default 204); called with the request already recorded. */
  answer: (request: ReceivedWebhook) => ReceiverAnswer;
  /** Stops listening (connections refused) until `start` again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that records every delivery, for webhook tests. */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  let server: Server | null = null;
  const hanging = new Set<ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    port,
    received: [],
    answer: () => ({ status: 204 }),
    async start() {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const request: ReceivedWebhook = {
            at: Date.now(),
            path: req.url ?? '/',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          };
          receiver.received.push(request);
          const answer = receiver.answer(request);
          if (answer === 'hang') {
            hanging.add(res);
            return;
          }
          res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(receiver.port, '127.0.0.1', resolve);
      });
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}`;
    },
    async stop() {
      if (!server) return;
      const closing = server;
      server = null;
      for (const res of hanging) res.destroy();
      hanging.clear();
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    },
    close: () => receiver.stop(),
  };
  await receiver.start();
  return receiver;
}

export interface SubscriptionSeed {
  url: string;
  eventTypes: WebhookEventType[];
  endpointId?: string | null;
  active?: boolean;
  format?: WebhookPayloadFormat;
}

/** A subscription stored as the API stores one (secret encrypted); returns its id and plain secret. */
export async function seedWebhookSubscription(
  world: TestWorld,
  seed: SubscriptionSeed,
): Promise<{ id: string; secret: string }> {
  const secret = generateSecret();
  const row = await world.db.prisma.webhookSubscription.create({
    data: {
      id: randomUUID(),
      url: seed.url,
      eventTypes: seed.eventTypes,
      endpointId: seed.endpointId ?? null,
      active: seed.active ?? true,
      format: seed.format ?? 'standard',
      secretEnc: new Uint8Array(encryptSecret(secret, world.secretKey)),
    },
  });
  return { id: row.id, secret };
}
