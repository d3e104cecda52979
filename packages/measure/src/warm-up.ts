import * as net from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ArrivalInbox } from './arrival-inbox';
import { currentThreadCpuUs } from './thread-cpu';
import { StreamAttempt, type AttemptResult, type RequestContext } from './stream-request';
import { TimingSlab } from './timing-slab';
import { createTransport, type StreamTransport } from './transport';
import type { Transport } from './types';

/**
 * What a fresh process pays for on its first requests, paid before the measured window instead: the
 * JIT compiles the read, framing and parse path only after it has run a few thousand times, and a
 * connection set-up delays the first request on it. Both land in the first second of a run, where
 * they would show as added delay on the first tokens (issue #13 measured P99 14 ms over tokens 1-19
 * against 4 ms later).
 *
 * The hot path is exercised against an in-process loopback responder serving canned chunks through
 * the run's own transport kind and request handler, so the endpoint sees nothing of it; then the
 * run's pool opens its connections (http1; undici's Pool cannot open a connection without a request).
 */

/** Streams at once against the loopback responder, rounds of them, chunks per stream. */
const STREAMS = 16;
const ROUNDS = 3;
const CHUNKS = 64;
/** However the loopback behaves, the run does not wait longer than this for it. */
const LOOPBACK_BUDGET_MS = 2000;
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
  transport: Transport,
  pool: StreamTransport,
  connections: number,
  template: RequestContext,
  /** Builds what the run will need first, so that the full GC below promotes it before the window. */
  prepare: () => void = () => undefined,
): Promise<WarmUpReport> {
  const started = process.hrtime.bigint();
  const chunks = await exerciseHotPath(stopped, transport, template).catch(() => 0);
  const opened = stopped() ? 0 : ((await pool.preconnect?.(connections)) ?? 0);
  if (!stopped()) {
    prepare();
    collectGarbage();
  }
  await letCompilerFinish(stopped);
  return { chunks, connections: opened, durationMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

function chunkEvent(i: number, last: boolean): string {
  const delta = i === 0 ? '{"role":"assistant","content":""}' : `{"content":" tok${i}"}`;
  const finish = last ? '"length"' : 'null';
  return (
    `data: {"id":"chatcmpl-warmup","object":"chat.completion.chunk","created":0,"model":"warmup",` +
    `"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}],` +
    `"usage":{"prompt_tokens":8,"completion_tokens":${i},"total_tokens":${8 + i}}}\n\n`
  );
}

function chunked(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]);
}

const RESPONSE_HEAD = Buffer.from(
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nkeep-alive: timeout=5\r\n\r\n',
);
const EVENTS = Array.from({ length: CHUNKS + 1 }, (_, i) => chunked(chunkEvent(i, i === CHUNKS)));
const TAIL = Buffer.concat([chunked('data: [DONE]\n\n'), Buffer.from('0\r\n\r\n')]);

/** Serves every request on a connection with CHUNKS canned chunks, one write per check phase. */
function loopbackResponder(): net.Server {
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    socket.on('data', (data) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = /content-length: *(\d+)/i.exec(pending.toString('latin1', 0, headEnd));
        const end = headEnd + 4 + Number(length?.[1] ?? 0);
        if (pending.length < end) return;
        pending = pending.subarray(end);
        socket.write(RESPONSE_HEAD);
        let i = 0;
        const next = () => {
          if (socket.destroyed) return;
          if (i < EVENTS.length) {
            socket.write(EVENTS[i++]);
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

async function exerciseHotPath(
  stopped: () => boolean,
  transport: Transport,
  template: RequestContext,
): Promise<number> {
  const server = loopbackResponder();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  const pool = createTransport(transport, new URL(`http://127.0.0.1:${port}`), {
    connections: STREAMS,
    keepAliveMs: 5000,
    lookup: undefined,
  });
  const context: RequestContext = {
    ...template,
    pool,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    inbox: new ArrivalInbox(),
    // the run's shelf: the scratches built here serve its requests; the records are thrown away
    timings: new TimingSlab(),
    streamOptions: { send: true, knownAccepted: false, rejectedByServer: false, retriedRequests: 0 },
    live: { outputTokens: 0 },
  };
  const budget = setTimeout(() => void pool.destroy(), LOOPBACK_BUDGET_MS);
  let chunks = 0;
  let index = 0;
  try {
    for (let round = 0; round < ROUNDS && !stopped(); round++) {
      const attempts = Array.from({ length: STREAMS }, () => {
        const identity = { index: index++, warmup: true, scheduledUs: null };
        const spec = { prompt: 'warm up', outputTokens: CHUNKS, targetPromptTokens: 8 };
        return new Promise<AttemptResult>((settled) =>
          new StreamAttempt(context, identity, spec, true).send(settled),
        );
      });
      for (const { record } of await Promise.all(attempts)) {
        if (record.outcome !== 'ok') return chunks;
        chunks += record.chunkOffsetsUs.length;
      }
    }
    return chunks;
  } finally {
    clearTimeout(budget);
    await pool.destroy().catch(() => undefined);
    await new Promise((resolve) => server.close(resolve));
  }
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
 */
export function collectGarbage(): void {
  // gc() exists only behind a flag; set now, it reaches the contexts created after it, as this one
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
