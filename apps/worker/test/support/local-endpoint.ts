import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test's own OpenAI-compatible server, listening on loopback. */
export interface LocalEndpoint {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Answers every request 200 `text/event-stream` and lets `stream` write the events, given the model
 * the request asked for (so one server can misbehave in several ways). `close` cuts open streams
 * first: an endless one never ends by itself.
 */
export async function streamingEndpoint(
  stream: (res: http.ServerResponse, model: string) => void,
): Promise<LocalEndpoint> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (part: Buffer) => (body += part.toString('utf8')));
    req.on('end', () => {
      const { model } = JSON.parse(body) as { model: string };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      stream(res, model);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
