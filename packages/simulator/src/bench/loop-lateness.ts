/**
 * How late the simulator's engine loop writes tokens at scale. Starts the simulator in its own process
 * (so the client does not share its event loop), opens N streams at ~50 tokens/s each, and reports
 * from the simulator's own records:
 * how late each step's timer fired, how late each token write finished after its scheduled instant,
 * and the CPU the simulator burned. Runs each --spin-us setting side by side for the ratio.
 *
 *   node packages/simulator/dist/bench/loop-lateness.js [--streams 1,64,256,1024] [--seconds 8] [--spin-us 1000,0]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { EngineStats } from '../engine';
import type { GroundTruthJson } from '../ground-truth';

interface Spread {
  p50: number;
  p99: number;
  max: number;
}

interface Figures {
  spinUs: number;
  streams: number;
  tokensPerStreamPerS: number;
  fire: EngineStats['fireLateness'];
  lastWrite: EngineStats['lastWriteLateness'];
  /** writeStartNs - scheduledNs of every token event: how late the loop began each write. */
  writeDelayUs: Spread;
  /** writtenNs - writeStartNs: the write call itself (syscall, and the reader it may wake). */
  writeCallUs: Spread;
  cpuCores: number;
  /** Simulator CPU per token written: the cost that decides how many streams one core carries. */
  cpuUsPerToken: number;
  rebases: number;
}

/**
 * A synthetic deployment whose every step lasts ~20 ms whatever the batch (weights read at 0.8 TB/s
 * effective, FLOPs and KV cache negligible), so each row streams ~50 tokens/s and measures the loop, not
 * the model.
 */
const PACED_OPTIONS = {
  gpu: {
    name: 'paced-20ms',
    memoryBandwidthBytesPerS: 1.0e12,
    memoryBytes: 1e12,
    flopsPerS: { bf16: 1e20 },
    interconnectBytesPerS: 1e12,
  },
  model: {
    name: 'paced',
    params: 7.8e9,
    layers: 1,
    kvHeads: 1,
    headDim: 1,
    hiddenSize: 1,
    contextLength: 131072,
  },
  latency: { stepOverheadS: 0.3e-3 },
  jitter: 0.03,
};

async function startChild(
  spinUs: number,
  streams: number,
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const options = { ...PACED_OPTIONS, port: 0, maxBatch: streams, spinUs };
  const script =
    `require(${JSON.stringify(join(__dirname, '..', 'index.js'))}).startSimulator(${JSON.stringify(options)})` +
    `.then((sim) => { console.log('listening on ' + sim.baseUrl); process.once('SIGTERM', () => sim.close().then(() => process.exit(0))); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { child, baseUrl };
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks of 1/100 s on Linux
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function streamOne(agent: Agent, baseUrl: string, maxTokens: number): Promise<string> {
  const body = JSON.stringify({
    prompt: 'bench the loop',
    stream: true,
    max_tokens: maxTokens,
    ignore_eos: true,
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/completions`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(String(res.headers['x-teapot-response-id'])));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function getJson<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as T;
}

function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]) - sorted[lo]);
}

function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted[sorted.length - 1] };
}

async function measure(spinUs: number, streams: number, seconds: number): Promise<Figures> {
  const { child, baseUrl } = await startChild(spinUs, streams);
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
    const maxTokens = seconds * 50;
    const cpuBefore = cpuSeconds(child.pid!);
    const started = process.hrtime.bigint();
    const ids = await Promise.all(
      Array.from({ length: streams }, () => streamOne(agent, baseUrl, maxTokens)),
    );
    const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuSeconds(child.pid!) - cpuBefore;
    agent.destroy();
    const stats = await getJson<{ engine: EngineStats }>(`${baseUrl}/_teapot/stats`);
    const sample = ids.filter((_, i) => i % Math.max(1, Math.floor(streams / 64)) === 0);
    const truths = await getJson<{ data: GroundTruthJson[] }>(`${baseUrl}/_teapot/ground-truth`, {
      ids: sample,
    });
    const delays: number[] = [];
    const calls: number[] = [];
    for (const truth of truths.data) {
      for (const e of truth.events) {
        if (e.kind !== 'content') continue;
        delays.push(Number(BigInt(e.writeStartNs) - BigInt(e.scheduledNs)) / 1e3);
        calls.push(Number(BigInt(e.writtenNs) - BigInt(e.writeStartNs)) / 1e3);
      }
    }
    return {
      spinUs,
      streams,
      tokensPerStreamPerS: maxTokens / elapsedS,
      fire: stats.engine.fireLateness,
      lastWrite: stats.engine.lastWriteLateness,
      writeDelayUs: spread(delays),
      writeCallUs: spread(calls),
      cpuCores: cpu / elapsedS,
      cpuUsPerToken: (cpu * 1e6) / (maxTokens * streams),
      rebases: stats.engine.rebases,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      streams: { type: 'string', default: '1,64,256,1024' },
      seconds: { type: 'string', default: '8' },
      'spin-us': { type: 'string', default: '1000,0' },
    },
  });
  const seconds = Number(values.seconds);
  const rows: Figures[] = [];
  for (const streams of values.streams.split(',').map(Number)) {
    for (const spinUs of values['spin-us'].split(',').map(Number))
      rows.push(await measure(spinUs, streams, seconds));
  }
  const f = (x: number) => x.toFixed(0).padStart(6);
  // the figures depend on what else the machine runs: say so next to them
  process.stdout.write(`${cpus().length} CPUs, 1-min load average at the end: ${loadavg()[0].toFixed(2)}\n`);
  process.stdout.write(
    'spin_us streams tok/s/stream | step fire late us p50 p99 max | last write of step late us p50 p99 max | ' +
      'token write start late us p50 p99 max | write call us p50 p99 max | sim CPU cores, us/token | rebases\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `${f(r.spinUs)} ${f(r.streams)} ${r.tokensPerStreamPerS.toFixed(1).padStart(6)} | ` +
        `${f(r.fire.p50Us)} ${f(r.fire.p99Us)} ${f(r.fire.maxUs)} | ` +
        `${f(r.lastWrite.p50Us)} ${f(r.lastWrite.p99Us)} ${f(r.lastWrite.maxUs)} | ` +
        `${f(r.writeDelayUs.p50)} ${f(r.writeDelayUs.p99)} ${f(r.writeDelayUs.max)} | ` +
        `${f(r.writeCallUs.p50)} ${f(r.writeCallUs.p99)} ${f(r.writeCallUs.max)} | ` +
        `${r.cpuCores.toFixed(2).padStart(5)} ${r.cpuUsPerToken.toFixed(1).padStart(5)} | ${r.rebases}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
