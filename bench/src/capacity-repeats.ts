/**
 * Capacity's run-to-run spread and the false-alarm check: the same capacity search of one unchanged
 * simulated configuration (llama-8b FP8 on an H100, batch 16, MLPerf llama3.1-8b interactive limits)
 * repeated N times (default 20). Prints each capacity, their mean, coefficient of variation and range,
 * then judges every window a deployment would see (the last 5 searches as baseline, the next 3 as
 * candidate, the deployment defaults) with the deployment rule at its default 10% threshold, and every
 * pair of disjoint halves with POST /comparisons/sweeps' rule at 5%: an unchanged configuration must
 * never come out `regressed`.
 *
 *   npm run bench:capacity-repeats [-- --repeats 20 --requests 300]
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { compareSweepValues, sweepRowVerification } from '@teapot/analysis';
import { runCli, type CliIo } from '@teapot/cli';
import type { SeriesSweep } from '@teapot/db';
import { simulatorCapacity } from '@teapot/simulator';
import { machineLine, positiveIntOption as option, startSimulatorProcess } from './harness';

const repeats = option('repeats', 20);
const requests = option('requests', 300);
const PRESET = 'mlperf-llama3.1-8b-interactive';
const FLAGS = ['--model', 'llama-8b', '--gpu', 'h100-sxm', '--quant', 'fp8', '--max-batch', '16'];
const BASELINE = 5;
const CANDIDATE = 3;

async function search(baseUrl: string, lowest: number, highest: number): Promise<number | null> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => ((err += text), true), isTTY: false },
    env: {},
  };
  const argv = ['sweep', '--url', baseUrl, '--input-tokens', '128', '--output-tokens', '64'];
  const bounds = ['--slo-preset', PRESET, '--lowest', String(lowest), '--highest', String(highest)];
  const code = await runCli([...argv, ...bounds, '--requests', String(requests), '--json', '-'], io);
  if (code === 1) throw new Error(`teapot sweep failed: ${err.slice(-800)}`);
  return (JSON.parse(out) as { outcome: { capacity: number | null } }).outcome.capacity;
}

/** A measured capacity as the verification reads a stored sweep. */
function asSweep(capacity: number | null, index: number): SeriesSweep {
  return {
    id: String(index),
    endpointId: 'bench',
    profileId: 'bench',
    configId: null,
    configVersion: 1,
    trigger: 'schedule',
    startedAt: new Date(index * 60_000),
    dimension: 'rate',
    capacity,
    costPerMtok: null,
    stopReason: capacity === null ? 'below_lowest' : 'converged',
    requests: 0,
    tokens: 0,
    config: {} as SeriesSweep['config'],
  };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const startedAt = Date.now();
  const truth = simulatorCapacity(
    { model: 'llama-8b', gpu: 'h100-sxm', quant: 'fp8', maxBatch: 16 },
    {
      workload: { inputTokens: 128, outputTokens: 64 },
      dimension: 'rate',
      slo: {
        preset: PRESET,
        targets: [
          { metric: 'ttft', percentile: 99, limitMs: 500 },
          { metric: 'tpot', percentile: 99, limitMs: 30 },
        ],
      },
      lowest: 0.5,
      highest: 512,
    },
  ).capacity;
  if (truth === null) throw new Error('the simulator misses the SLO at its lowest load');
  const lowest = Number((truth / 8).toPrecision(3));
  const highest = Number((truth * 4).toPrecision(3));
  const sim = await startSimulatorProcess(FLAGS);
  const found: Array<number | null> = [];
  try {
    for (let i = 0; i < repeats; i++) {
      const start = performance.now();
      found.push(await search(sim.baseUrl, lowest, highest));
      const last = found[found.length - 1];
      console.log(
        `repeat ${i + 1}: ${last === null ? 'below lowest' : last.toFixed(2)} req/s (${((performance.now() - start) / 1000).toFixed(0)} s)`,
      );
    }
  } finally {
    await sim.process.stop();
  }
  const values = found.filter((v): v is number => v !== null);
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
  console.log(
    `\n${repeats} searches, ${requests} requests a point; simulator truth ${truth.toFixed(2)} req/s: mean ${mean.toFixed(2)} ` +
      `(${(((mean - truth) / truth) * 100).toFixed(1)}%), CV ${((sd / mean) * 100).toFixed(1)}%, range ` +
      `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}, ${found.length - values.length} below lowest`,
  );
  const sweeps = found.map(asSweep);
  const verdicts = new Map<string, number>();
  for (let start = 0; start + BASELINE + CANDIDATE <= sweeps.length; start++) {
    const baseline = sweeps.slice(start, start + BASELINE);
    const candidate = sweeps.slice(start + BASELINE, start + BASELINE + CANDIDATE);
    const { row } = sweepRowVerification('capacity', baseline, candidate, 0.1);
    verdicts.set(row.verdict, (verdicts.get(row.verdict) ?? 0) + 1);
  }
  console.log(
    `deployment windows (${BASELINE} before, ${CANDIDATE} after, 10%): ${[...verdicts].map(([v, n]) => `${n} ${v}`).join(', ')}`,
  );
  const halves = new Map<string, number>();
  for (let cut = 3; cut <= sweeps.length - 3; cut++) {
    const row = compareSweepValues('capacity', sweeps.slice(0, cut), sweeps.slice(cut), {
      threshold: 0.05,
      confidence: 0.95,
    });
    halves.set(row.verdict, (halves.get(row.verdict) ?? 0) + 1);
  }
  console.log(
    `comparisons of the first k against the rest (5%): ${[...halves].map(([v, n]) => `${n} ${v}`).join(', ')}`,
  );
  const falseAlarms = (verdicts.get('regressed') ?? 0) + (halves.get('regressed') ?? 0);
  console.log(`false regressed verdicts: ${falseAlarms}`);
  console.log(machineLine(loadBefore, startedAt));
  if (falseAlarms > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
