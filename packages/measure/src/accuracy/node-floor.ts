import * as net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  OUTPUT_TOKENS,
  plainRequest,
  type ClientDocument,
  type ClientJob,
  type StreamDocument,
} from './documents';

const LOOP_RESOLUTION_MS = 10;
const CONTENT_MARK = Buffer.from('"content":"');
const ID_MARK = Buffer.from('"id":"');
const STREAM_END = Buffer.from('\r\n0\r\n\r\n');

/** What a client that is not teapot reports itself: where its times count from, its streams and failures. */
export type PlainRun = Pick<ClientDocument, 'originNs' | 'streams' | 'failed'>;

/** A client that is not teapot, with its CPU and its event loop's delay over the run (teapot reports its own). */
export async function measurePlainClient(run: () => Promise<PlainRun>): Promise<ClientDocument> {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const cpu = process.cpuUsage();
  const plain = await run();
  const used = process.cpuUsage(cpu);
  loop.disable();
  const excess = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  return {
    ...plain,
    cpuUs: used.user + used.system,
    loop: { p99: excess(loop.percentile(99)), max: excess(loop.max) },
    saturation: null,
  };
}

/**
 * node-floor, what any Node client can reach here: sockets read with `onread` into one buffer, a
 * timestamp per read, content chunks found with Buffer.indexOf, times kept in a typed array; no HTTP
 * parsing at all.
 */
export async function runNodeFloor(job: ClientJob): Promise<PlainRun> {
  const { port } = new URL(job.baseUrl);
  const { requests } = job;
  const request = plainRequest(job.baseUrl);
  const times = new Float64Array(requests * (OUTPUT_TOKENS + 8));
  const owners = new Int32Array(times.length);
  const ids: string[] = [];
  const shared = Buffer.allocUnsafe(64 * 1024);
  const originNs = process.hrtime.bigint();
  let count = 0;
  let started = 0;
  let done = 0;
  await new Promise<void>((resolve, reject) => {
    const sockets: net.Socket[] = [];
    for (let i = 0; i < Math.min(job.streams, requests); i++) {
      let current = -1;
      const socket = net.connect({
        host: '127.0.0.1',
        port: Number(port),
        onread: {
          buffer: shared,
          callback: (length: number, buffer: Uint8Array) => {
            const ns = Number(process.hrtime.bigint() - originNs);
            const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, length);
            if (ids[current] === undefined) {
              const at = bytes.indexOf(ID_MARK);
              if (at >= 0) ids[current] = bytes.toString('latin1', at + 6, bytes.indexOf(0x22, at + 6));
            }
            for (let at = bytes.indexOf(CONTENT_MARK); at >= 0; at = bytes.indexOf(CONTENT_MARK, at + 11)) {
              if (bytes[at + 11] === 0x22) continue;
              times[count] = ns;
              owners[count++] = current;
            }
            const ended = bytes.indexOf(STREAM_END) >= 0 || (bytes[0] === 0x30 && bytes[1] === 0x0d);
            if (!ended) return true;
            if (++done === requests) {
              for (const s of sockets) s.destroy();
              resolve();
            } else if (started < requests) {
              current = started++;
              socket.write(request);
            }
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.once('connect', () => {
        current = started++;
        socket.write(request);
      });
      socket.once('error', reject);
      sockets.push(socket);
    }
  });
  const byId = new Map<string, StreamDocument>();
  for (let k = 0; k < count; k++) {
    const id = ids[owners[k]];
    let stream = byId.get(id);
    if (stream === undefined) byId.set(id, (stream = { id, ns: [], tokens: null }));
    stream.ns.push(times[k]);
  }
  return { originNs: originNs.toString(), streams: [...byId.values()], failed: 0 };
}
