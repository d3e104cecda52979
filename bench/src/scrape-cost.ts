/**
 * What scraping the server's metrics during a run costs the measurement: the same run against the
 * simulator with the worker's scraper at 1 s (ServerMetricsSampler on this thread, the run on a
 * measuring thread of its own, as the worker does) and without, alternated A B A B in one invocation,
 * so drift of the machine hits both sides alike. The scrapes go to the simulator's own /metrics (vLLM's
 * names and histograms), so the server renders its exposition between the steps it serves, as vLLM does.
 * Prints P99 ITL of each run, the median of each side and their difference, and the median of the
 * pairs' differences (robust to the machine's drift between pairs).
 *
 *   npm run bench:scrape-cost [-- --pairs 4 --requests 200 --concurrency 16 --interval-ms 1000]
 */
import { loadavg } from 'node:os';
import { runBenchmarkInThread, type RunResult } from '@teapot/measure';
import { measuredWindowOf, ServerMetricsSampler } from '@teapot/server-metrics';
import { endpointUrlPolicy } from '@teapot/webhooks';
import {
  machineLine,
  median,
  positiveIntOption as option,
  startSimulatorProcess,
  textTable,
} from './harness';

const PAIRS = option('pairs', 4);
const REQUESTS = option('requests', 200);
const CONCURRENCY = option('concurrency', 16);
const INTERVAL_MS = option('interval-ms', 1_000);

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadBefore = loadavg();
  const simulator = await startSimulatorProcess(['--gpu', 'h100-sxm', '--model', 'llama-8b', '--seed', '1']);
  const metricsUrl = simulator.baseUrl.replace(/\/v1$/, '/metrics');
  const policy = endpointUrlPolicy('public,private,loopback');
  const rows: Array<{ side: 'A' | 'B'; p99: number; scrapes: number }> = [];
  let lines = 0;
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const side of ['A', 'B'] as const) {
        const sampler =
          side === 'A'
            ? new ServerMetricsSampler({
                url: metricsUrl,
                policy,
                intervalMs: INTERVAL_MS,
                model: 'llama-8b',
              })
            : null;
        await sampler?.start();
        const result: RunResult = await runBenchmarkInThread({
          target: { baseUrl: simulator.baseUrl, apiKind: 'chat', model: 'llama-8b' },
          workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 64 },
          load: { kind: 'closed', concurrency: CONCURRENCY },
          requests: REQUESTS,
          seed: 7,
          timeoutMs: 120_000,
          stallTimeoutMs: 30_000,
          forceOutputLength: true,
        });
        const scraped = await sampler?.stop(BigInt(result.monotonicAnchorNs), measuredWindowOf(result));
        const p99 = result.summary.itlMs?.p99;
        if (p99 === undefined)
          throw new Error(`run ${pair}${side} has no ITL: ${JSON.stringify(result.summary.errorsByClass)}`);
        rows.push({ side, p99, scrapes: scraped?.diagnostics.scrapes ?? 0 });
        if (scraped?.diagnostics.error) console.log(`  run ${pair + 1}${side}: ${scraped.diagnostics.error}`);
      }
    }
    // the body after the runs, its histograms filled, as on a server that has been serving
    lines = (await (await fetch(metricsUrl)).text()).split('\n').length;
  } finally {
    await simulator.process.stop();
  }
  const table = textTable([
    ['run', 6],
    ['scraping', 10],
    ['scrapes', 8],
    ['P99 ITL ms', 11],
  ]);
  console.log(
    `scrape cost: ${PAIRS} pairs of ${REQUESTS} requests x 64 tokens at concurrency ${CONCURRENCY}; metrics body ${lines} lines`,
  );
  console.log(table.header);
  rows.forEach((row, i) =>
    console.log(
      table.line([
        `${(i >> 1) + 1}${row.side}`,
        row.side === 'A' ? `${INTERVAL_MS} ms` : 'off',
        String(row.scrapes),
        row.p99.toFixed(3),
      ]),
    ),
  );
  const a = median(rows.filter((r) => r.side === 'A').map((r) => r.p99));
  const b = median(rows.filter((r) => r.side === 'B').map((r) => r.p99));
  console.log(
    `median P99 ITL: scraping ${a.toFixed(3)} ms, not scraping ${b.toFixed(3)} ms; difference ${(a - b).toFixed(3)} ms (${(((a - b) / b) * 100).toFixed(1)}%)`,
  );
  // Each pair ran back to back: its difference cancels most of the machine's drift between pairs.
  const paired = Array.from({ length: PAIRS }, (_, i) => rows[2 * i].p99 - rows[2 * i + 1].p99);
  console.log(
    `median of the ${PAIRS} paired differences (A - B): ${median(paired).toFixed(3)} ms; pairs: ${paired.map((d) => d.toFixed(1)).join(', ')}`,
  );
  console.log(machineLine(loadBefore, startedAt));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
