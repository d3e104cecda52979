// A run in a process of its own, for speed/deopt.spec.ts: node --trace-deopt --trace-deopt-verbose
// window-trace.js <dist> <baseUrl> <streams> <requests>. V8's trace and these lines share stdout in order.
const { subscribe } = require('node:diagnostics_channel');
const [dist, baseUrl, streams, requests] = process.argv.slice(2);
const { runBenchmark } = require(`${dist}/index.js`);
const { MEASURED_WINDOW_CHANNEL } = require(`${dist}/speed/measured-window.js`);

// the run's own window, not its rehearsals' (they run against the warm-up's loopback)
subscribe(MEASURED_WINDOW_CHANNEL, (edge) => {
  if (edge.baseUrl === baseUrl) console.log(`teapot-window ${edge.edge}`);
});
runBenchmark({
  target: { baseUrl, apiKind: 'chat', model: 'llama-8b' },
  workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 50 },
  load: { kind: 'closed', concurrency: Number(streams) },
  requests: Number(requests),
  forceOutputLength: true,
  seed: 1,
}).then((result) => console.log(`teapot-run ${JSON.stringify(result.summary.requests)}`));
