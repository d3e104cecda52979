import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder in front of a real service, so a test can take "the database" or "Redis" away
 * and bring it back (every connection cut, new ones refused) without touching the shared server.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private silent = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    const server = net.createServer((client) => {
      if (this.silent) {
        this.hold(client);
        return;
      }
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  /** The service goes away: open connections are cut and new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * The service goes silent, as behind a network partition: connections stay open and new ones are
   * accepted, but nothing more crosses in either direction and nothing is refused or reset.
   */
  blackhole(): void {
    this.silent = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  /** The service comes back on the same port (after a blackhole, the silent connections are cut). */
  async restore(): Promise<void> {
    if (this.silent) {
      this.silent = false;
      for (const socket of this.sockets) socket.destroy();
      return;
    }
    await this.start(this.port);
  }

  private hold(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pause();
  }

  close(): Promise<void> {
    return this.cut();
  }
}
