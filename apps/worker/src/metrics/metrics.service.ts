import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { queueHealth, type QueueHealth } from '@teapot/jobs';
import { WORKER_ENV } from '../env/worker-env';
import { PrismaService } from '../prisma/prisma.service';
import { RedisService } from '../redis/redis.service';
import { WorkerMetrics } from './worker-metrics';

export interface WorkerHealth {
  workerId: string;
  queue: QueueHealth;
  runsByStatus: Record<string, number>;
  runningHere: number;
}

/**
 * Queue depth, runs by status and this process's counters, as JSON or Prometheus text, served on
 * WORKER_METRICS_PORT (when set) from boot to shutdown.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MetricsService.name);
  private server: Server | null = null;
  /** Bound port of the listener, when WORKER_METRICS_PORT is set. */
  port: number | null = null;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    private readonly redis: RedisService,
    private readonly prisma: PrismaService,
    private readonly metrics: WorkerMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.env.WORKER_METRICS_PORT !== undefined)
      this.port = await this.listen(this.env.WORKER_METRICS_PORT, this.env.WORKER_METRICS_HOST);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }

  async health(): Promise<WorkerHealth> {
    const [queue, runsByStatus] = await Promise.all([
      queueHealth(this.redis.runs.queue),
      this.runsByStatus(),
    ]);
    return { workerId: this.env.WORKER_ID, queue, runsByStatus, runningHere: this.metrics.runsMeasuring };
  }

  private async runsByStatus(): Promise<Record<string, number>> {
    const groups = await this.prisma.run.groupBy({ by: ['status'], _count: { _all: true } });
    return Object.fromEntries(groups.map((group) => [group.status, group._count._all]));
  }

  /** The Prometheus exposition text: the queue and run gauges are read now, the counters are this process's. */
  async prometheus(): Promise<string> {
    const health = await this.health();
    this.metrics.runsByStatus.reset();
    for (const [status, count] of Object.entries(health.runsByStatus))
      this.metrics.runsByStatus.set({ status }, count);
    const { queue, ...byState } = health.queue;
    for (const [state, count] of Object.entries(byState)) this.metrics.queueJobs.set({ queue, state }, count);
    return this.metrics.registry.metrics();
  }

  /** GET /metrics (Prometheus text) and GET /health (JSON) on WORKER_METRICS_HOST:WORKER_METRICS_PORT. */
  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    const server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      const reply = (status: number, type: string, body: string) => {
        response.writeHead(status, { 'content-type': type }).end(body);
      };
      if (request.method !== 'GET' || (path !== '/metrics' && path !== '/health')) {
        reply(404, 'text/plain', 'not found: GET /metrics or GET /health\n');
        return;
      }
      const body = path === '/metrics' ? this.prometheus() : this.health().then((h) => JSON.stringify(h));
      body.then(
        (text) =>
          reply(200, path === '/metrics' ? this.metrics.registry.contentType : 'application/json', text),
        (error: Error) => reply(503, 'text/plain', `unavailable: ${error.message}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    // No authentication here: say plainly who can reach it.
    const { address, port: bound } = server.address() as AddressInfo;
    const shown = address.includes(':') ? `[${address}]` : address;
    this.logger.log(
      `metrics on http://${shown}:${bound}/metrics (no authentication; WORKER_METRICS_HOST sets the address)`,
    );
    return bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
