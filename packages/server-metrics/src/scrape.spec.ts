import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeHugeBody } from '@teapot/testing-base';
import { endpointUrlPolicy, type HostResolver } from '@teapot/webhooks';
import { scrapeDispatcher, scrapeMetrics } from './scrape';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Hostile and honest metrics servers on loopback, one handler per path. */
describe('scrapeMetrics against servers on loopback', () => {
  let server: Server;
  let base: string;
  const seen: IncomingMessage['headers'][] = [];
  const handlers: Record<string, Handler> = {
    '/ok': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
        .end('vllm:num_requests_running 3\n'),
    '/openmetrics': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/openmetrics-text; version=1.0.0' })
        .end('# TYPE c counter\nc_total 2\n# EOF\n'),
    '/html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'),
    '/garbage': (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('this is not { metrics\n'),
    '/500': (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'),
    '/stall': () => undefined,
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeHugeBody(res, 'vllm:num_requests_running{engine="0"} 1\n', 50e6);
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      (handlers[req.url ?? ''] ?? handlers['/500'])(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = endpointUrlPolicy('public,loopback');

  it('reads the Prometheus text format and sends the configured headers', async () => {
    const result = await scrapeMetrics(`${base}/ok`, {
      policy: open,
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(result).toEqual({
      ok: true,
      samples: [{ name: 'vllm:num_requests_running', labels: {}, value: 3 }],
      bytes: 28,
    });
    expect(seen[seen.length - 1].authorization).toBe('Bearer s3cret');
  });

  it('reads OpenMetrics text', async () => {
    const result = await scrapeMetrics(`${base}/openmetrics`, { policy: open });
    expect(result.ok && result.samples.map((s) => s.name)).toEqual(['c_total']);
  });

  it.each([
    ['/html', /answered text\/html, not the Prometheus text format/],
    ['/garbage', /invalid exposition text/],
    ['/500', /^HTTP 500$/],
  ])('%s is a failed scrape saying why', async (path, reason) => {
    const result = await scrapeMetrics(base + path, { policy: open });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(reason);
  });

  it('aborts a 50 MB body at the cap, reading little more than the cap', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const result = await scrapeMetrics(`${base}/huge`, { policy: open, maxBodyBytes: 1024 * 1024 });
    expect(result).toEqual({ ok: false, error: 'the body is over 1048576 bytes' });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(20e6);
  });

  it('ends a stalled answer at the scrape timeout', async () => {
    const started = Date.now();
    const result = await scrapeMetrics(`${base}/stall`, { policy: open, timeoutMs: 200 });
    expect(result).toEqual({ ok: false, error: 'timeout: no complete answer within 200 ms' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a URL the policy refuses, without connecting', async () => {
    const count = seen.length;
    const result = await scrapeMetrics(`${base}/ok`, { policy: endpointUrlPolicy('public,private') });
    expect(!result.ok && result.error).toMatch(/refused by the URL policy: 127.0.0.1 is a loopback address/);
    expect(seen.length).toBe(count);
  });

  it('refuses at connect time a name that resolves to a metadata address', async () => {
    const toMetadata: HostResolver = (_host, _options, callback) =>
      callback(null, [{ address: '169.254.169.254', family: 4 }]);
    const dispatcher = scrapeDispatcher(open, toMetadata);
    const result = await scrapeMetrics('http://metrics.example.test/metrics', { policy: open, dispatcher });
    await dispatcher.close();
    expect(!result.ok && result.error).toMatch(
      /refused by the URL policy at connect time: metrics.example.test \(169.254.169.254\) is a link-local address/,
    );
  });
});
