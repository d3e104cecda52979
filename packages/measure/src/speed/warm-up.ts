import * as net from 'node:net';
import { currentThreadCpuUs } from '../thread-cpu';
import type { StreamTransport } from '../transport';

/**
 * What a fresh process pays for on its first requests, paid before the measured window instead: the
 * JIT compiles the read, framing, parse and request path only after it has run a few hundred to a few
 * thousand times, and a connection set-up delays the first request on it. Both land in the first
 * second of a run, where they would show as added delay on the first tokens (issue #13 measured P99
 * 14 ms over tokens 1-19 against 4 ms later).
 *
 * The run rehearses: small runs of its own kind (transport, API, the whole request life from the send
 * to the kept record) against an in-process loopback responder serving canned chunks, so the endpoint
 * sees nothing of it; then the run's pool opens its connections (http1; undici's Pool cannot open a
 * connection without a request).
 */

/** A rehearsal: `requests` requests of `chunks` token chunks, `streams` at a time. */
export interface Rehearsal {
  streams: number;
  requests: number;
  chunks: number;
}

/**
 * Before the full GC: long streams, for the per-chunk path (~3,000 chunks). The GC then throws away
 * optimized code that had embedded objects of the rehearsal it frees (--trace-opt: "weak objects", 18
 * functions of the read path), which V8 compiled again in the window's first 100 ms, on the client's
 * one core, 10-25 ms of CPU each.
 */
const BEFORE_GC: Rehearsal[] = [{ streams: 16, requests: 48, chunks: 64 }];
/**
 * After it, so that what it threw away is compiled again before the window: long streams once more,
 * then many short requests for the per-request path (writing, response heads, records), which ran too
 * few times otherwise and was compiled inside the window (parseHead, dispatch, the socket write).
 */
function afterGc(runRequests: number | null): Rehearsal[] {
  // V8 compiles the per-request functions after one to three thousand calls, the rehearsal's and the
  // run's together: a rehearsal as long as the run compiled them inside the window of every run of 500
  // to 3,000 requests (--trace-opt at 1024 streams: send, write, readHead, onResponseEnd, release and
  // some fifteen more, in the window's first and last steps). A small run never gets them hot; its
  // rehearsal is as long as the run, as each run's thread pays for it.
  const requests = runRequests !== null && runRequests < SMALL_RUN ? runRequests : SHORT_REQUESTS;
  return [
    { streams: 16, requests: 32, chunks: 64 },
    { streams: 32, requests, chunks: 2 },
  ];
}
const SHORT_REQUESTS = 3000;
const SMALL_RUN = 300;
/** After the warm-up, wait in steps of this while the compiler works (see letCompilerFinish)... */
const SETTLE_STEP_MS = 20;
/** ...until the process's other threads used less than this share of a step... */
const SETTLE_IDLE_SHARE = 0.1;
/** ...and no longer than this: another busy thread of the process (a worker storing a run) may never go quiet. */
const SETTLE_MAX_MS = 500;

export interface WarmUpReport {
  /** Token chunks parsed through the hot path before the measured window. */
  chunks: number;
  /** Connections to the endpoint opened before the measured window. */
  connections: number;
  durationMs: number;
}

export async function warmUp(
  stopped: () => boolean,
  pool: StreamTransport,
  connections: number,
  /** Requests the run will send, when it knows (it may also end on a duration). */
  runRequests: number | null,
  /** Runs a rehearsal against `baseUrl`; resolves with the token chunks it parsed. */
  rehearse: (baseUrl: string, rehearsal: Rehearsal) => Promise<number>,
  /** Builds what the run will need first, so that the full GC below promotes it before the window. */
  prepare: () => void = () => undefined,
): Promise<WarmUpReport> {
  const started = process.hrtime.bigint();
  const server = loopbackResponder();
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let chunks = 0;
  let opened = 0;
  try {
    const baseUrl = await listen(server);
    const rehearseAll = async (rehearsals: Rehearsal[]) => {
      for (const rehearsal of rehearsals) {
        if (stopped()) return;
        chunks += await rehearse(baseUrl, rehearsal).catch(() => 0);
      }
    };
    await rehearseAll(BEFORE_GC);
    opened = stopped() ? 0 : ((await pool.preconnect?.(connections)) ?? 0);
    if (!stopped()) {
      prepare();
      collectGarbage();
      await rehearseAll(afterGc(runRequests));
    }
  } finally {
    // a rehearsal's pool is closed when it ends; this is for one cut short
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
  await letCompilerFinish(stopped);
  return { chunks, connections: opened, durationMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

function listen(server: net.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`),
    );
  });
}

/**
 * How a server reports usage in a stream: in every event (vLLM's continuous usage stats), or once, in
 * a last event with no choices (OpenAI's and vLLM's include_usage). The rehearsal sees both: with the
 * first alone, the read path met its first empty `choices` in the window and deoptimized there.
 */
type UsageStyle = 'every-event' | 'last-event';

/** One server-sent event of a completion stream, as an OpenAI-compatible server words it. */
function streamEvent(chat: boolean, choices: string, usageTokens: number | null): Buffer {
  const object = chat ? 'chat.completion.chunk' : 'text_completion';
  const usage =
    usageTokens === null
      ? ''
      : `,"usage":{"prompt_tokens":8,"completion_tokens":${usageTokens},"total_tokens":${8 + usageTokens}}`;
  const text =
    `data: {"id":"cmpl-9f3c2e1d0b8a7f6e5d4c3b2a","object":"${object}","created":0,"model":"warm-up",` +
    `"choices":${choices}${usage}}\n\n`;
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]);
}

function choice(body: string, finish: boolean): string {
  return `[{"index":0,${body},"logprobs":null,"finish_reason":${finish ? '"length"' : 'null'}}]`;
}

/** The chunks of a response of `tokens` tokens: chat opens with the assistant's role, no token. */
function responseEvents(chat: boolean, tokens: number, style: UsageStyle): Buffer[] {
  const everyEvent = (count: number) => (style === 'every-event' ? count : null);
  const events = chat
    ? [streamEvent(true, choice('"delta":{"role":"assistant","content":""}', false), everyEvent(0))]
    : [];
  for (let i = 1; i <= tokens; i++) {
    const body = chat ? `"delta":{"content":" tok${i}"}` : `"text":" tok${i}"`;
    events.push(streamEvent(chat, choice(body, i === tokens), everyEvent(i)));
  }
  if (style === 'last-event') events.push(streamEvent(chat, '[]', tokens));
  return events;
}

/** Heads of two kinds of server (with and without a keep-alive hint), in turn, so the rehearsal sees both. */
const RESPONSE_HEADS = [
  'HTTP/1.1 200 OK\r\nx-request-id: 5c0e7a3b\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n' +
    'connection: keep-alive\r\nkeep-alive: timeout=5\r\ntransfer-encoding: chunked\r\n\r\n',
  'HTTP/1.1 200 OK\r\ndate: Thu, 01 Jan 2026 00:00:00 GMT\r\nserver: uvicorn\r\n' +
    'content-type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n',
].map((head) => Buffer.from(head));
const TAIL = Buffer.from('e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n');
const MAX_TOKENS = 256;

/**
 * Answers each request on a connection with as many canned chunks as its max_tokens asks (chat or
 * completions by its path), one write per check phase, so that each is a read of its own.
 */
function loopbackResponder(): net.Server {
  const canned = new Map<string, Buffer[]>();
  let responses = 0;
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    socket.on('data', (data) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = pending.toString('latin1', 0, headEnd);
        const end = headEnd + 4 + Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end) return;
        const body = pending.toString('utf8', headEnd + 4, end);
        pending = pending.subarray(end);
        const chat = head.includes('/chat/');
        const tokens = Math.min(MAX_TOKENS, Math.max(1, Number(/"max_tokens":(\d+)/.exec(body)?.[1] ?? 1)));
        // heads and usage styles in turn, each in every combination with the other
        const style: UsageStyle = (responses >> 1) % 2 === 0 ? 'every-event' : 'last-event';
        const key = `${chat} ${tokens} ${style}`;
        let events = canned.get(key);
        if (events === undefined) canned.set(key, (events = responseEvents(chat, tokens, style)));
        socket.write(RESPONSE_HEADS[responses++ % RESPONSE_HEADS.length]);
        let i = 0;
        const next = () => {
          if (socket.destroyed) return;
          if (i < events.length) {
            socket.write(events[i++]);
            setImmediate(next);
          } else {
            socket.write(TAIL);
          }
        };
        setImmediate(next);
      }
    });
    socket.on('error', () => undefined);
  });
}

/**
 * V8 optimizes what the warm-up made hot on background threads: ~100 ms of CPU for this path. On a
 * client with one core those threads would take it in the measured window's first tenth of a second,
 * while tokens wait (the accuracy bench's client is pinned to one core: it showed as ~30 ms of compile
 * after the window opened). So the run waits until the process's threads other than this one go quiet.
 */
export async function letCompilerFinish(stopped: () => boolean): Promise<void> {
  const started = performance.now();
  let othersUs = otherThreadsCpuUs();
  while (!stopped() && performance.now() - started < SETTLE_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_STEP_MS));
    const nowUs = otherThreadsCpuUs();
    const busyUs = nowUs - othersUs;
    othersUs = nowUs;
    if (busyUs < SETTLE_STEP_MS * 1000 * SETTLE_IDLE_SHARE) return;
  }
}

/** CPU the process's other threads (V8's compiler and GC helpers among them) have used, us. */
function otherThreadsCpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system - currentThreadCpuUs();
}

/**
 * Collects this thread's heap once before the measured window. Its first major GC otherwise came in
 * the window's first second, when the first wave's requests (~2 KB each in flight) were promoted on top
 * of the warm-up's garbage: at 512 streams an 8 ms pause plus ~25 ms of marking beside the reads. After
 * a full collection V8 sizes the heap to what is live, and a run seldom needs another.
 *
 * gc() exists only where the process exposed it (`node --expose-gc`, or the entry point's
 * setFlagsFromString before the measuring thread starts: MEASURING_PROCESS_FLAGS). A library does not
 * set V8 flags for the application that embeds it, so without gc() the warm-up goes on without the
 * collection (false); the run then pays its first major GC in the window, as described above.
 */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}
