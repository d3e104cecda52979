/**
 * Capacity at an SLO: `teapot sweep`'s search against the simulator's own capacity (its model-time
 * replay, simulatorCapacity), for several model/GPU/quantisation configurations, and against a fixed
 * 16-point geometric grid over the same span that stops at its first failing point (the usual
 * one-off sweep). Prints per configuration the truth, each method's capacity, error, points and wall
 * time, and the search's wall time as a ratio of the grid's measured in the same run.
 *
 *   npm run bench:capacity [-- --requests N]
 *
 * Targets: the search within 5% of the truth in at most 8 points.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runCli, type CliIo } from '@teapot/cli';
import { simulatorCapacity, type SimulatorOptions } from '@teapot/simulator';
import { machineLine, positiveIntOption as option, startSimulatorProcess, textTable } from './harness';

/** Requests per point; 0 (default): teapot sweep's own, about 12 s of arrivals. */
const requests = option('requests', 0);
const INPUT = 128;
const OUTPUT = 64;
/** The MLPerf llama3.1-8b interactive limits, P99 TTFT 500 ms and P99 TPOT 30 ms. */
const PRESET = 'mlperf-llama3.1-8b-interactive';
const SLO = {
  preset: PRESET,
  targets: [
    { metric: 'ttft' as const, percentile: 99 as const, limitMs: 500 },
    { metric: 'tpot' as const, percentile: 99 as const, limitMs: 30 },
  ],
};
const GRID_POINTS = 16;

interface Configuration {
  name: string;
  simulator: SimulatorOptions;
  flags: string[];
}

const CONFIGURATIONS: Configuration[] = [
  {
    name: 'llama-8b fp16 h100 batch 16',
    simulator: { model: 'llama-8b', gpu: 'h100-sxm', quant: 'fp16', maxBatch: 16 },
    flags: ['--model', 'llama-8b', '--gpu', 'h100-sxm', '--quant', 'fp16', '--max-batch', '16'],
  },
  {
    name: 'llama-8b fp8 h100 batch 16',
    simulator: { model: 'llama-8b', gpu: 'h100-sxm', quant: 'fp8', maxBatch: 16 },
    flags: ['--model', 'llama-8b', '--gpu', 'h100-sxm', '--quant', 'fp8', '--max-batch', '16'],
  },
  {
    name: 'llama-8b fp16 a100 batch 24 chunked',
    simulator: { model: 'llama-8b', gpu: 'a100-80gb', quant: 'fp16', maxBatch: 24, chunkedPrefill: true },
    flags: [
      '--model',
      'llama-8b',
      '--gpu',
      'a100-80gb',
      '--quant',
      'fp16',
      '--max-batch',
      '24',
      '--chunked-prefill',
    ],
  },
];

interface Found {
  capacity: number | null;
  points: number;
  wallS: number;
}

/** One `teapot sweep` through the CLI's own entry point, its JSON read back. */
async function sweep(baseUrl: string, flags: string[]): Promise<Found> {
  let out = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: () => true, isTTY: false },
    env: {},
  };
  const start = performance.now();
  const argv = [
    'sweep',
    '--url',
    baseUrl,
    '--input-tokens',
    String(INPUT),
    '--output-tokens',
    String(OUTPUT),
  ];
  const perPoint = requests > 0 ? ['--requests', String(requests)] : [];
  const code = await runCli([...argv, ...perPoint, '--json', '-', ...flags], io);
  const wallS = (performance.now() - start) / 1000;
  if (code === 1) throw new Error(`teapot sweep failed: ${out.slice(0, 500)}`);
  const result = JSON.parse(out) as { points: unknown[]; outcome: { capacity: number | null } };
  return { capacity: result.outcome.capacity, points: result.points.length, wallS };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const startedAt = Date.now();
  const table = textTable([
    ['configuration', 36],
    ['truth', 7],
    ['method', 7],
    ['found', 7],
    ['error', 7],
    ['points', 6],
    ['wall s', 7],
  ]);
  const lines = [table.header];
  const ratios: string[] = [];
  for (const config of CONFIGURATIONS) {
    const truthStart = performance.now();
    const truth = simulatorCapacity(config.simulator, {
      workload: { inputTokens: INPUT, outputTokens: OUTPUT },
      dimension: 'rate',
      slo: SLO,
      lowest: 0.5,
      highest: 512,
    });
    const truthS = (performance.now() - truthStart) / 1000;
    if (truth.capacity === null) throw new Error(`${config.name}: the SLO fails at the lowest load`);
    const lowest = round(truth.capacity / 8);
    const highest = round(truth.capacity * 4);
    const sim = await startSimulatorProcess(config.flags);
    try {
      const search = await sweep(sim.baseUrl, [
        ...['--slo-preset', PRESET, '--lowest', String(lowest), '--highest', String(highest)],
      ]);
      const ratio = Math.pow(highest / lowest, 1 / (GRID_POINTS - 1));
      const grid = Array.from({ length: GRID_POINTS }, (_, i) => round(lowest * Math.pow(ratio, i)));
      const gridFound = await sweep(sim.baseUrl, ['--slo-preset', PRESET, '--points', grid.join(',')]);
      for (const [method, found] of [
        ['search', search],
        ['grid', gridFound],
      ] as const) {
        lines.push(
          table.line([
            method === 'search' ? config.name : '',
            method === 'search' ? truth.capacity.toFixed(2) : '',
            method,
            found.capacity === null ? '-' : found.capacity.toFixed(2),
            found.capacity === null
              ? '-'
              : `${(((found.capacity - truth.capacity) / truth.capacity) * 100).toFixed(1)}%`,
            String(found.points),
            found.wallS.toFixed(0),
          ]),
        );
      }
      ratios.push(
        `${config.name}: search ${search.points} points in ${search.wallS.toFixed(0)} s vs grid ${gridFound.points} in ` +
          `${gridFound.wallS.toFixed(0)} s -> ${(gridFound.wallS / search.wallS).toFixed(1)}x faster; truth computed in ${truthS.toFixed(1)} s ` +
          `(${truth.evaluations.length} loads replayed)`,
      );
    } finally {
      await sim.process.stop();
    }
    console.log(lines[lines.length - 2]);
    console.log(lines[lines.length - 1]);
  }
  console.log(
    `\ncapacity at ${PRESET} (P99 TTFT <= 500 ms, P99 TPOT <= 30 ms), ${INPUT}/${OUTPUT} tokens, Poisson, ${requests > 0 ? requests : 'about 12 s of arrivals'} per point:`,
  );
  console.log(lines.join('\n'));
  console.log(ratios.join('\n'));
  console.log(machineLine(loadBefore, startedAt));
}

function round(value: number): number {
  return Number(value.toPrecision(3));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
