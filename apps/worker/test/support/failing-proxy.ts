import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a simulator that passes the first `healthy` completion requests through
 * as they are and asks the simulator to fail every later one (its `x-teapot-fault` header): an
 * endpoint that breaks after a known number of requests, whatever the timing.
 */
export class FailingProxy {
  private server: http.Server | null = null;
  private completions = 0;

  constructor(
    private readonly target: URL,
    private readonly healthy: number,
    private readonly fault = '500',
  ) {}

  /** The proxy's base URL (`http://127.0.0.1:<port>/v1`). */
  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const headers: http.OutgoingHttpHeaders = { ...req.headers, host: this.target.host };
      if (req.method === 'POST' && req.url?.endsWith('/completions') && ++this.completions > this.healthy)
        headers['x-teapot-fault'] = this.fault;
      const upstream = http.request(
        { host: this.target.hostname, port: this.target.port, path: req.url, method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
