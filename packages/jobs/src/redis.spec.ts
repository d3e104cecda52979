import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Queue } from 'bullmq';
import { closeQueuesAndConnection, createRedis } from './redis';

const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** Passes Redis through until the client's second INFO (BullMQ's version check), then answers nothing. */
function stallingAfterReadyCheck(): Promise<{ server: Server; url: string }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(REDIS.port || 6379), REDIS.hostname);
    sockets.add(client).add(upstream);
    let infos = 0;
    client.on('data', (chunk) => {
      infos += (chunk.toString('latin1').match(/\$4\r\nINFO\r\n/gi) ?? []).length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (infos < 2) client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => [client, upstream].forEach((s) => s.destroy()));
    }
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `redis://127.0.0.1:${port}` });
    }),
  );
}

describe('closeQueuesAndConnection', () => {
  it("closes a queue whose version check is still in flight without an unhandled 'Connection is closed'", async () => {
    const { server, url } = await stallingAfterReadyCheck();
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      const connection = createRedis(url, { maxRetriesPerRequest: 1 });
      const queue = new Queue('runs', { connection, prefix: `teapot-test-${randomUUID()}` });
      await new Promise<void>((resolve) => connection.once('ready', () => resolve()));
      // The situation of a process stopped right after it started: connected, BullMQ's check unanswered.
      const checked = await Promise.race([
        queue.waitUntilReady().then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 300)),
      ]);
      expect(checked).toBe(false);

      await closeQueuesAndConnection(connection, [queue]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled.map(String)).toEqual([]);
      expect(connection.status).toBe('end');
    } finally {
      process.off('unhandledRejection', collect);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('closes queues on a Redis that is down, without waiting for it', async () => {
    const connection = createRedis('redis://127.0.0.1:1');
    connection.on('error', () => undefined);
    const queue = new Queue('runs', { connection, prefix: `teapot-test-${randomUUID()}` });
    const started = Date.now();
    await closeQueuesAndConnection(connection, [queue]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('closes queues on a Redis that answers at once', async () => {
    const connection = createRedis(REDIS.toString());
    const queue = new Queue('runs', { connection, prefix: `teapot-test-${randomUUID()}` });
    const started = Date.now();
    await closeQueuesAndConnection(connection, [queue]);
    expect(Date.now() - started).toBeLessThan(1_500);
    await new Promise((resolve) =>
      connection.status === 'end' ? resolve(null) : connection.once('end', resolve),
    );
  });
});
