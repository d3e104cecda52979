import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runBenchmark } from '../run';
import type { RunOptions, RunResult } from '../types';

/**
 * Parser-level cases the simulator does not produce: a tiny server that writes exact byte sequences.
 * A step is bytes to write, a pause in ms, or 'destroy' to reset the connection.
 */
export type Step = string | Buffer | number | 'destroy';
export type Reply = {
  status?: number;
  headers?: Record<string, string>;
  steps: Step[];
  earlyHints?: boolean;
};
export type Handler = (body: Record<string, unknown>, req: IncomingMessage) => Reply;

export interface ByteServer {
  baseUrl: string;
  bodies: Array<Record<string, unknown>>;
  headers: IncomingMessage['headers'][];
  urls: string[];
  close(): Promise<void>;
}

export async function byteServer(handler: Handler): Promise<ByteServer> {
  const bodies: Array<Record<string, unknown>> = [];
  const headers: IncomingMessage['headers'][] = [];
  const urls: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      bodies.push(body);
      headers.push(req.headers);
      urls.push(req.url ?? '');
      const reply = handler(body, req);
      if (reply.earlyHints) res.writeEarlyHints({ link: '</x>; rel=preload' });
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
      res.flushHeaders();
      for (const step of reply.steps) {
        if (step === 'destroy') {
          res.socket?.destroy();
          return;
        }
        if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
        else res.write(step);
      }
      res.end();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    bodies,
    headers,
    urls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function runAgainst(
  handler: Handler,
  overrides: Partial<RunOptions> = {},
): Promise<{ result: RunResult; server: ByteServer }> {
  const server = await byteServer(handler);
  try {
    const result = await runBenchmark({
      target: {
        baseUrl: server.baseUrl,
        apiKind: 'chat',
        model: 'm',
        headers: { authorization: 'Bearer secret' },
      },
      workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 3 },
      load: { kind: 'closed', concurrency: 1 },
      requests: 1,
      stallTimeoutMs: 2000,
      ...overrides,
    });
    return { result, server };
  } finally {
    await server.close();
  }
}

export const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'r1', choices: [{ index: 0, delta, finish_reason: null, ...extra }] })}\n\n`;
export const usage = (completion: number) =>
  `data: ${JSON.stringify({ id: 'r1', choices: [], usage: { prompt_tokens: 4, completion_tokens: completion } })}\n\n`;
