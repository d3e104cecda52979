/**
 * A stand-in for an engine's /metrics while the simulator serves none: vLLM-style exposition text of a
 * few hundred lines (two engines, two models, the Python client's process and GC series, `_created`
 * series, histograms of 20-30 buckets), with counters and histograms that grow with time, so a scrape
 * costs what a real one does: the body on the wire and its parse. Run as a child process by
 * scrape-cost.ts; prints "exposition listening on URL".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const MODELS = ['llama-8b', 'meta-llama/Llama-3.1-70B-Instruct'];
const ENGINES = ['0', '1'];
const LATENCY_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const started = Date.now();

function histogram(
  name: string,
  help: string,
  bounds: number[],
  labels: string,
  total: number,
  meanS: number,
): string[] {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  lines.push(`${name}_sum{${labels}} ${(total * meanS).toFixed(6)}`);
  for (const bound of bounds) {
    const share = 1 - Math.exp(-bound / meanS);
    lines.push(`${name}_bucket{le="${bound}",${labels}} ${Math.floor(total * share)}.0`);
  }
  lines.push(`${name}_bucket{le="+Inf",${labels}} ${total}.0`, `${name}_count{${labels}} ${total}.0`);
  lines.push(
    `# HELP ${name}_created ${help}`,
    `# TYPE ${name}_created gauge`,
    `${name}_created{${labels}} ${started / 1000}`,
  );
  return lines;
}

function render(): string {
  const t = (Date.now() - started) / 1000;
  const lines: string[] = [
    '# HELP python_gc_objects_collected_total Objects collected during gc',
    '# TYPE python_gc_objects_collected_total counter',
    ...[0, 1, 2].map(
      (g) => `python_gc_objects_collected_total{generation="${g}"} ${Math.floor(1000 * t + g)}.0`,
    ),
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    'process_resident_memory_bytes 2.147483648e+09',
  ];
  for (const model of MODELS) {
    for (const engine of ENGINES) {
      const labels = `engine="${engine}",model_name="${model}"`;
      const requests = Math.floor(20 * t);
      const tokens = requests * 128;
      lines.push(
        `vllm:num_requests_running{${labels}} ${(8 + Math.sin(t)).toFixed(0)}.0`,
        `vllm:num_requests_waiting{${labels}} 0.0`,
        `vllm:kv_cache_usage_perc{${labels}} ${(0.5 + 0.2 * Math.sin(t / 3)).toFixed(4)}`,
        `vllm:num_preemptions_total{${labels}} ${Math.floor(t / 7)}.0`,
        `vllm:prefix_cache_queries_total{${labels}} ${tokens * 4}.0`,
        `vllm:prefix_cache_hits_total{${labels}} ${tokens}.0`,
        `vllm:spec_decode_num_drafts_total{${labels}} ${requests * 30}.0`,
        `vllm:spec_decode_num_draft_tokens_total{${labels}} ${requests * 90}.0`,
        `vllm:spec_decode_num_accepted_tokens_total{${labels}} ${requests * 60}.0`,
        `vllm:prompt_tokens_total{${labels}} ${tokens * 2}.0`,
        `vllm:generation_tokens_total{${labels}} ${tokens}.0`,
        ...['stop', 'length', 'abort'].map(
          (reason) => `vllm:request_success_total{${labels},finished_reason="${reason}"} ${requests}.0`,
        ),
        ...histogram(
          'vllm:time_to_first_token_seconds',
          'Histogram of time to first token in seconds.',
          LATENCY_BUCKETS,
          labels,
          requests,
          0.05,
        ),
        ...histogram(
          'vllm:inter_token_latency_seconds',
          'Histogram of inter-token latency in seconds.',
          ITL_BUCKETS,
          labels,
          tokens,
          0.012,
        ),
        ...histogram(
          'vllm:e2e_request_latency_seconds',
          'Histogram of e2e request latency in seconds.',
          LATENCY_BUCKETS,
          labels,
          requests,
          1.6,
        ),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(render());
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `exposition listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics (${render().split('\n').length} lines)\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
