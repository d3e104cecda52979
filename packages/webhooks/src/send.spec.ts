import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSecret, verify } from './signature';
import { sendWebhook, RESPONSE_KEEP_BYTES, webhookDispatcher } from './send';
import { freePort } from '@teapot/testing-base';
import { Agent } from 'undici';
import { guardedLookup, webhookUrlPolicy, type HostResolver } from './url-policy';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('sendWebhook against a real receiver on loopback', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  const received: Array<{ headers: IncomingMessage['headers']; body: string; path: string }> = [];
  const open = webhookUrlPolicy('public,loopback');
  const secret = generateSecret();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ headers: req.headers, body, path: req.url ?? '' });
        handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    handler = (_req, res) => res.writeHead(204).end();
  });

  const message = (path = '/hook', secrets = [secret]) => ({
    url: base + path,
    secrets,
    messageId: 'msg_2f1c',
    body: JSON.stringify({ version: 1, type: 'ping', data: { hello: 'world' } }),
  });

  it('signs so that the exported verify accepts the request as received, with either rotation secret', async () => {
    const next = generateSecret();
    const result = await sendWebhook(message('/hook', [next, secret]), { policy: open });
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(result.durationMs).toBeGreaterThan(0);
    const [request] = received;
    expect(request.headers['content-type']).toBe('application/json');
    expect(verify(secret, request.headers, request.body)).toEqual({
      id: 'msg_2f1c',
      timestamp: Number(request.headers['webhook-timestamp']),
    });
    expect(verify(next, request.headers, request.body).id).toBe('msg_2f1c');
    expect(() => verify(generateSecret(), request.headers, request.body)).toThrow(/No v1 signature/);
    expect(() => verify(secret, request.headers, request.body + ' ')).toThrow(/No v1 signature/);
  });

  it('keeps status, the first 1 KB of the body and Retry-After of a refusal', async () => {
    handler = (_req, res) => res.writeHead(429, { 'retry-after': '7' }).end('x'.repeat(5000));
    const result = await sendWebhook(message(), { policy: open });
    expect(result.statusCode).toBe(429);
    expect(result.error).toBe('HTTP 429');
    expect(result.responseBody).toHaveLength(RESPONSE_KEEP_BYTES);
    expect(result.retryAfterMs).toBe(7000);
  });

  it('does not follow a redirect', async () => {
    handler = (req, res) =>
      req.url === '/hook' ? res.writeHead(307, { location: '/elsewhere' }).end() : res.writeHead(200).end();
    const result = await sendWebhook(message(), { policy: open });
    expect(result.statusCode).toBe(307);
    expect(received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    handler = () => undefined;
    const result = await sendWebhook(message(), { policy: open, timeoutMs: 300 });
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/^timeout: no complete answer within 300 ms/);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('refuses loopback unless the policy opens it, by the text and again at connect time', async () => {
    const closed = webhookUrlPolicy('public');
    const literal = await sendWebhook(message(), { policy: closed });
    expect(literal.error).toMatch(
      /^refused by the URL policy: .*loopback address; allowed only when TEAPOT_WEBHOOK_URL_ALLOW/,
    );
    // A name that passes the text check but resolves to loopback (DNS rebinding): refused at connect time.
    const port = new URL(base).port;
    const rebinding = new Agent({
      connect: {
        lookup: guardedLookup(closed, (_host, _options, callback) =>
          callback(null, [{ address: '127.0.0.1', family: 4 }]),
        ),
      },
    });
    const byName = await sendWebhook(
      { ...message(), url: `http://hooks.example.com:${port}/hook` },
      { policy: closed, dispatcher: rebinding },
    );
    await rebinding.close();
    expect(byName.statusCode).toBeNull();
    expect(byName.error).toMatch(
      /^refused by the URL policy at connect time: hooks.example.com \(127.0.0.1\) is a loopback address/,
    );
    expect(received).toHaveLength(0);
    const metadata = await sendWebhook(
      { ...message(), url: 'http://169.254.169.254/latest/meta-data' },
      { policy: open },
    );
    expect(metadata.error).toMatch(/link-local|metadata/);
  });

  it('refuses a name that resolves to the metadata address (169.254.169.254.nip.io) at connect time', async () => {
    // nip.io answers with the address written in the name; a local stub stands in for its DNS
    const nipIo: HostResolver = (host, _options, callback) =>
      callback(null, [{ address: host.replace(/\.nip\.io$/, ''), family: 4 }]);
    const dispatcher = webhookDispatcher(open, nipIo);
    const result = await sendWebhook(
      { ...message(), url: 'http://169.254.169.254.nip.io/latest/meta-data' },
      { policy: open, dispatcher },
    );
    await dispatcher.close();
    expect(result.statusCode).toBeNull();
    expect(result.error).toBe(
      'refused by the URL policy at connect time: 169.254.169.254.nip.io (169.254.169.254) is a link-local address; teapot never connects to one.',
    );
  });

  it('reports a refused connection', async () => {
    // Free once found and released: nothing listens on it.
    const closedPort = await freePort();
    const result = await sendWebhook(
      { ...message(), url: `http://127.0.0.1:${closedPort}/` },
      { policy: open },
    );
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
