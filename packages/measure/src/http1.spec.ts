import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import * as net from 'node:net';
import { join } from 'node:path';
import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { Http1Pool } from './http1';
import type { StreamRequestOptions } from './transport';

/** What a handler saw of one exchange. */
interface Seen {
  started: number;
  status: number | null;
  headers: IncomingHttpHeaders;
  body: string;
  dataCalls: number;
  ended: boolean;
  error: (Error & { code?: string }) | null;
}

function recorder(): { handler: Dispatcher.DispatchHandler; seen: Seen; done: Promise<Seen> } {
  const seen: Seen = {
    started: 0,
    status: null,
    headers: {},
    body: '',
    dataCalls: 0,
    ended: false,
    error: null,
  };
  let finish!: (value: Seen) => void;
  const done = new Promise<Seen>((resolve) => (finish = resolve));
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart: () => void seen.started++,
    onResponseStart: (_c, status, headers) => {
      seen.status = status;
      seen.headers = headers as IncomingHttpHeaders;
    },
    onResponseData: (_c, chunk) => {
      seen.dataCalls++;
      seen.body += chunk.toString('utf8');
    },
    onResponseEnd: () => {
      seen.ended = true;
      finish(seen);
    },
    onResponseError: (_c, error) => {
      seen.error = error;
      finish(seen);
    },
  };
  return { handler, seen, done };
}

const REQUEST: StreamRequestOptions = {
  path: '/v1/chat/completions',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"prompt":"héllo"}',
};

/**
 * A raw TCP server that answers every request on a connection with the next of `responses`, each
 * sent as the given pieces (one write each, with a pause between, so they arrive as separate reads).
 */
async function rawServer(responses: Array<string[]>): Promise<{
  url: URL;
  requests: string[];
  connections: () => number;
  close: () => Promise<void>;
}> {
  const requests: string[] = [];
  let connections = 0;
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', async (data) => {
      pending += data.toString('utf8');
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(pending)?.[1] ?? 0);
      if (Buffer.byteLength(pending) < Buffer.byteLength(pending.slice(0, headEnd + 4)) + length) return;
      requests.push(pending);
      pending = '';
      const pieces = responses[next++ % responses.length];
      socket.setNoDelay(true);
      for (const piece of pieces) {
        if (piece === '<close>') {
          socket.destroy();
          return;
        }
        socket.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    requests,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

type RawServer = Awaited<ReturnType<typeof rawServer>>;

/** Runs `use` on a pool over a raw server answering `responses`; both are closed after, pass or fail. */
async function withPool<T>(
  responses: Array<string[]>,
  options: ConstructorParameters<typeof Http1Pool>[1],
  use: (pool: Http1Pool, server: RawServer) => Promise<T>,
): Promise<T> {
  const server = await rawServer(responses);
  const pool = new Http1Pool(server.url, options);
  try {
    return await use(pool, server);
  } finally {
    await pool.destroy();
    await server.close();
  }
}

/** Dispatches one request and waits for the exchange to end. */
function send(pool: Http1Pool, request: StreamRequestOptions = REQUEST): Promise<Seen> {
  const { handler, done } = recorder();
  pool.dispatch(request, handler);
  return done;
}

async function exchange(
  pieces: string[],
  request: StreamRequestOptions = REQUEST,
): Promise<Seen & { raw: string; host: string }> {
  return withPool([pieces], { connections: 1, keepAliveMs: 1000 }, async (pool, server) => ({
    ...(await send(pool, request)),
    raw: server.requests[0] ?? '',
    host: server.url.host,
  }));
}

const SSE_HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const chunk = (data: string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;

describe('Http1Pool: request', () => {
  it('writes one HTTP/1.1 request with host, the caller headers and the UTF-8 byte length', async () => {
    const seen = await exchange([SSE_HEAD, '0\r\n\r\n']);
    const [head, body] = seen.raw.split('\r\n\r\n');
    const lines = head.split('\r\n');
    expect(lines[0]).toBe('POST /v1/chat/completions HTTP/1.1');
    expect(lines).toContain(`host: ${seen.host}`);
    expect(lines).toContain('content-type: application/json');
    expect(lines).toContain(`content-length: ${Buffer.byteLength(REQUEST.body)}`);
    expect(body).toBe(REQUEST.body);
    expect(seen.started).toBe(1);
  });

  it("writes each request's own line and headers when they change from one request to the next", async () => {
    const other: StreamRequestOptions = {
      path: '/v2/completions?x=1',
      method: 'POST',
      headers: { 'x-other': 'yes' },
      body: '{}',
    };
    await withPool([[SSE_HEAD, '0\r\n\r\n']], { connections: 1, keepAliveMs: 1000 }, async (pool, server) => {
      for (const request of [REQUEST, REQUEST, other, { ...other, headers: { 'x-third': '3' } }]) {
        await send(pool, request);
      }
      const heads = server.requests.map((raw) => raw.split('\r\n\r\n')[0].split('\r\n'));
      expect(heads.map((lines) => lines[0])).toEqual([
        'POST /v1/chat/completions HTTP/1.1',
        'POST /v1/chat/completions HTTP/1.1',
        'POST /v2/completions?x=1 HTTP/1.1',
        'POST /v2/completions?x=1 HTTP/1.1',
      ]);
      expect(heads[1]).toContain('content-type: application/json');
      expect(heads[2]).toContain('x-other: yes');
      expect(heads[2]).not.toContain('content-type: application/json');
      expect(heads[3]).toContain('x-third: 3');
      expect(heads[3]).not.toContain('x-other: yes');
      expect(heads[3]).toContain('content-length: 2');
    });
  });
});

describe('Http1Pool: response framing', () => {
  it('delivers the chunked body of each read once, whatever the chunk boundaries', async () => {
    const events = ['data: {"a":1}\n\n', 'data: {"b":2}\n\n', 'data: [DONE]\n\n'];
    const wire = events.map(chunk).join('') + '0\r\n\r\n';
    // every split point of the body framing, including inside the size line and the CRLFs
    for (let split = 1; split < wire.length; split += 3) {
      const seen = await exchange([SSE_HEAD, wire.slice(0, split), wire.slice(split)]);
      expect(seen.error).toBeNull();
      expect(seen.body).toBe(events.join(''));
      expect(seen.ended).toBe(true);
    }
  });

  it('gives a read that holds several HTTP chunks to the handler as one piece', async () => {
    const seen = await exchange([SSE_HEAD + chunk('data: 1\n\n') + chunk('data: 2\n\n'), '0\r\n\r\n']);
    expect(seen.body).toBe('data: 1\n\ndata: 2\n\n');
    expect(seen.dataCalls).toBe(1);
  });

  it('ignores chunk extensions and trailer fields', async () => {
    const seen = await exchange([SSE_HEAD, '5;name=value\r\nhello\r\n0\r\nx-trailer: 1\r\n\r\n']);
    expect(seen.body).toBe('hello');
    expect(seen.ended).toBe(true);
  });

  it('reads a content-length body, and a body delimited by the connection closing', async () => {
    const sized = await exchange(['HTTP/1.1 400 Bad Request\r\ncontent-length: 7\r\n\r\n', 'too bad']);
    expect(sized).toMatchObject({ status: 400, body: 'too bad', ended: true, error: null });
    const untilClose = await exchange([
      'HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n',
      'data: x\n\n',
      '<close>',
    ]);
    expect(untilClose).toMatchObject({ status: 200, body: 'data: x\n\n', ended: true, error: null });
  });

  it('skips 1xx interim responses, and parses headers split across reads', async () => {
    const seen = await exchange([
      'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 429 Too Many',
      ' Requests\r\nretry-after: 7\r\nset-cookie: a\r\nset-cookie: b\r\ncontent-length: 0\r\n\r\n',
    ]);
    expect(seen.status).toBe(429);
    expect(seen.headers['retry-after']).toBe('7');
    expect(seen.headers['set-cookie']).toEqual(['a', 'b']);
    expect(seen).toMatchObject({ body: '', ended: true });
  });

  it.each([
    ['a garbage status line', ['HTTP/2 200\r\n\r\n'], /status line/],
    ['an invalid chunk size', [SSE_HEAD, 'zz\r\nhello\r\n'], /chunk size/],
    ['chunk data without CRLF', [SSE_HEAD, '5\r\nhelloXX'], /CRLF/],
    [
      'an unknown transfer-encoding',
      ['HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n'],
      /transfer-encoding/,
    ],
  ])('fails the exchange on %s with TEAPOT_HTTP_PARSE', async (_name, pieces, message) => {
    const seen = await exchange(pieces);
    expect(seen.error?.code).toBe('TEAPOT_HTTP_PARSE');
    expect(seen.error?.message).toMatch(message);
    expect(seen.ended).toBe(false);
  });

  it('fails with TEAPOT_SOCKET_CLOSED when the server closes mid-stream, after the bytes that came', async () => {
    const seen = await exchange([SSE_HEAD, chunk('data: 1\n\n'), '<close>']);
    expect(seen.body).toBe('data: 1\n\n');
    expect(seen.error?.code).toBe('TEAPOT_SOCKET_CLOSED');
    expect(seen.error?.message).toMatch(/mid-response/);
  });

  it('passes ECONNREFUSED through for a closed port', async () => {
    const server = await rawServer([[]]);
    const url = server.url;
    await server.close();
    const pool = new Http1Pool(url, { connections: 1, keepAliveMs: 1000 });
    const { handler, done } = recorder();
    pool.dispatch(REQUEST, handler);
    const seen = await done;
    await pool.destroy();
    expect(seen.error?.code).toBe('ECONNREFUSED');
    expect(seen.started).toBe(0);
  });
});

describe('Http1Pool: connections', () => {
  it('reuses a kept-alive connection and never opens more than the limit', async () => {
    await withPool(
      [[SSE_HEAD, chunk('data: x\n\n') + '0\r\n\r\n']],
      { connections: 2, keepAliveMs: 5000 },
      async (pool, server) => {
        const all = Array.from({ length: 6 }, () => recorder());
        for (const { handler } of all) pool.dispatch(REQUEST, handler);
        const seen = await Promise.all(all.map((r) => r.done));
        expect(seen.every((s) => s.body === 'data: x\n\n' && s.ended)).toBe(true);
        expect(server.requests).toHaveLength(6);
        expect(server.connections()).toBe(2);
      },
    );
  });

  it('hands a request dispatched as a response ends the connection that response is releasing', async () => {
    // A response's connection is released after the poll phase (releaseSoon); a request that comes
    // before that, here from inside the ending read's callback, must not open a second connection.
    await withPool(
      [[SSE_HEAD, chunk('data: x\n\n') + '0\r\n\r\n']],
      { connections: null, keepAliveMs: 5000 },
      async (pool, server) => {
        const all = Array.from({ length: 4 }, () => recorder());
        all.forEach(({ handler }, i) => {
          const next = all[i + 1];
          const onResponseEnd = handler.onResponseEnd!.bind(handler);
          handler.onResponseEnd = (controller, trailers) => {
            onResponseEnd(controller, trailers);
            if (next) pool.dispatch(REQUEST, next.handler);
          };
        });
        pool.dispatch(REQUEST, all[0].handler);
        const seen = await Promise.all(all.map((r) => r.done));
        expect(seen.every((s) => s.body === 'data: x\n\n' && s.ended)).toBe(true);
        expect(server.requests).toHaveLength(4);
        expect(server.connections()).toBe(1);
      },
    );
  });

  it('opens a new connection after `connection: close`, and when the keep-alive hint has run out', async () => {
    const answers = [
      ['HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\na'],
      ['HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 1\r\n\r\nb'],
      ['HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nc'],
    ];
    await withPool(answers, { connections: 1, keepAliveMs: 5000 }, async (pool, server) => {
      for (const expected of ['a', 'b', 'c']) expect((await send(pool)).body).toBe(expected);
      // a: closed by the server; b: timeout=1 s leaves no margin, so the client closes it
      expect(server.connections()).toBe(3);
    });
  });

  it('an abort before the request is written keeps the connection; after, it closes it', async () => {
    await withPool(
      [[SSE_HEAD, chunk('data: x\n\n')]],
      { connections: 1, keepAliveMs: 5000 },
      async (pool, server) => {
        const { handler, seen, done } = recorder();
        pool.dispatch(REQUEST, {
          ...handler,
          onResponseData: (controller, data) => {
            handler.onResponseData!(controller, data);
            controller.abort(new Error('enough'));
          },
        });
        const first = await done;
        expect(first.error?.message).toBe('enough');
        expect(seen.body).toBe('data: x\n\n');
        const second = recorder();
        pool.dispatch(REQUEST, {
          ...second.handler,
          onRequestStart: (controller) => controller.abort(new Error('never mind')),
        });
        expect((await second.done).error?.message).toBe('never mind');
        expect(server.requests).toHaveLength(1);
      },
    );
  });

  it('fails queued and running exchanges when destroyed', async () => {
    const server = await rawServer([[SSE_HEAD]]);
    const pool = new Http1Pool(server.url, { connections: 1, keepAliveMs: 5000 });
    const running = recorder();
    const queued = recorder();
    pool.dispatch(REQUEST, running.handler);
    pool.dispatch(REQUEST, queued.handler);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await pool.destroy();
    await server.close();
    expect((await running.done).error).not.toBeNull();
    expect((await queued.done).error?.code).toBe('TEAPOT_POOL_DESTROYED');
  });

  it('speaks TLS with the same framing', async () => {
    const fixtures = join(__dirname, 'test-support');
    const server = tls.createServer(
      {
        key: readFileSync(join(fixtures, 'localhost-key.pem')),
        cert: readFileSync(join(fixtures, 'localhost-cert.pem')),
      },
      (socket) => {
        socket.once('data', () => socket.end(SSE_HEAD + chunk('data: secure\n\n') + '0\r\n\r\n'));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    // the fixture is self-signed (CN and SAN localhost): this pool trusts it, and checks the name
    const ca = readFileSync(join(fixtures, 'localhost-cert.pem'));
    const pool = new Http1Pool(new URL(`https://localhost:${port}`), {
      connections: 1,
      keepAliveMs: 1000,
      ca,
    });
    try {
      const { handler, done } = recorder();
      pool.dispatch(REQUEST, handler);
      const seen = await done;
      expect(seen.error).toBeNull();
      expect(seen.body).toBe('data: secure\n\n');
    } finally {
      await pool.destroy();
      server.close();
    }
  });
});
