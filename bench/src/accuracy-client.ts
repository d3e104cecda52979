/**
 * One client of the accuracy bench, run in a fresh process per level and repetition (see accuracy.ts),
 * so that no client profits from JIT work or connections left over from an earlier level.
 *
 *   node dist/accuracy-client.js '{"client":"http1","baseUrl":"http://127.0.0.1:8000/v1","streams":64,"requests":128}'
 *
 * Prints one ClientDocument (JSON) on stdout.
 */
import * as net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CHUNK_KIND, runBenchmarkInThread, TRANSPORTS, type Transport } from '@teapot/measure';
import {
  ACCURACY_MODEL,
  INPUT_TOKENS,
  OUTPUT_TOKENS,
  PLAIN_BODY,
  plainRequest,
  type ClientDocument,
  type ClientJob,
  type StreamDocument,
} from './accuracy-setup';

const LOOP_RESOLUTION_MS = 10;

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '') as ClientJob;
  let document: ClientDocument;
  if ((TRANSPORTS as readonly string[]).includes(job.client)) {
    document = await runTeapot(job, job.client as Transport);
  } else {
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const cpu = process.cpuUsage();
    const run = job.client === 'baseline' ? await runBaseline(job) : await runNodeFloor(job);
    const used = process.cpuUsage(cpu);
    loop.disable();
    const excess = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    document = {
      ...run,
      cpuUs: used.user + used.system,
      loop: { p99: excess(loop.percentile(99)), max: excess(loop.max) },
      saturation: null,
    };
  }
  process.stdout.write(JSON.stringify(document));
}

/** teapot as a product run uses it: on a measuring thread of its own, with its warm-up before the measured window. */
async function runTeapot(job: ClientJob, transport: Transport): Promise<ClientDocument> {
  const result = await runBenchmarkInThread({
    transport,
    target: { baseUrl: job.baseUrl, apiKind: 'chat', model: ACCURACY_MODEL },
    workload: { kind: 'synthetic', inputTokens: INPUT_TOKENS, outputTokens: OUTPUT_TOKENS },
    load: { kind: 'closed', concurrency: job.streams },
    requests: job.requests,
    seed: 1,
    timeoutMs: 120_000,
    forceOutputLength: true,
  });
  const streams: StreamDocument[] = [];
  for (const record of result.requests) {
    if (record.outcome !== 'ok' || record.responseId === null) continue;
    const ns: number[] = [];
    const tokens: number[] = [];
    for (let i = 0; i < record.chunkOffsetsUs.length; i++) {
      if (record.chunkKinds[i] === CHUNK_KIND.empty || record.chunkTokens[i] === 0) continue;
      ns.push((record.startUs + record.chunkOffsetsUs[i]) * 1000);
      tokens.push(record.chunkTokens[i]);
    }
    streams.push({ id: record.responseId, ns, tokens });
  }
  const { client } = result;
  return {
    originNs: result.monotonicAnchorNs,
    streams,
    failed: result.summary.requests.failed,
    cpuUs: client.cpuUs ?? null,
    loop: { p99: client.eventLoopDelayMs.p99, max: client.eventLoopDelayMs.max },
    saturation: { estimateP99Ms: client.timingErrorP99Ms ?? NaN, flagged: client.saturated },
  };
}

type PlainRun = Pick<ClientDocument, 'originNs' | 'streams' | 'failed'>;

/** The one-off-script client: fetch, decode, split lines, parse, and only then read the clock. */
async function runBaseline(job: ClientJob): Promise<PlainRun> {
  const originNs = process.hrtime.bigint();
  const streams: StreamDocument[] = [];
  let issued = 0;
  let failed = 0;
  const worker = async () => {
    while (issued < job.requests) {
      issued++;
      try {
        streams.push(await baselineStream(`${job.baseUrl}/chat/completions`, originNs));
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(job.streams, job.requests) }, worker));
  return { originNs: originNs.toString(), streams, failed };
}

async function baselineStream(url: string, originNs: bigint): Promise<StreamDocument> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: PLAIN_BODY,
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const stream: StreamDocument = { id: '', ns: [], tokens: null };
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(6));
      const now = process.hrtime.bigint();
      stream.id ||= chunk.id;
      if (chunk.choices?.[0]?.delta?.content) stream.ns.push(Number(now - originNs));
    }
  }
  return stream;
}

const CONTENT_MARK = Buffer.from('"content":"');
const ID_MARK = Buffer.from('"id":"');
const STREAM_END = Buffer.from('\r\n0\r\n\r\n');

/**
 * What any Node client can reach here: sockets read with `onread` into one buffer, a timestamp per
 * read, content chunks found with Buffer.indexOf, times kept in a typed array; no HTTP parsing at all.
 */
async function runNodeFloor(job: ClientJob): Promise<PlainRun> {
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

main().catch((error: unknown) => {
  process.stderr.write(
    `accuracy-client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
