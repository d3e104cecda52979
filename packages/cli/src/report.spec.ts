import { renderReport, type BenchReport } from './report';
import { evaluateSlos, parseSlo } from './slo';
import { knownSummary } from './test-support/summary';

function report(overrides: Partial<BenchReport> = {}): BenchReport {
  const summary = overrides.summary ?? knownSummary();
  return {
    baseUrl: 'http://127.0.0.1:8000/v1',
    apiKind: 'chat',
    model: 'llama-8b',
    simulator: null,
    load: { kind: 'closed', concurrency: 8 },
    workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 128 },
    forceOutputLength: true,
    summary,
    client: {
      eventLoopDelayMs: { p50: 0.5, p99: 1.25, max: 3.5, mean: 0.6 },
      saturated: false,
      cpuPercent: 41.6,
    },
    transport: 'http1',
    measureVersion: '0.2.0',
    streamOptions: { requested: true, rejectedByServer: false },
    slo: [],
    aborted: false,
    ...overrides,
  };
}

function row(text: string, label: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`${label} `));
  if (!line) throw new Error(`no row ${label} in\n${text}`);
  return line.slice(label.length).trim().split(/\s+/);
}

describe('renderReport', () => {
  it('prints P50/P90/P99/P99.9/mean in ms for each latency row', () => {
    const text = renderReport(report());
    expect(row(text, 'latency (ms)')).toEqual(['P50', 'P90', 'P99', 'P99.9', 'mean']);
    expect(row(text, 'TTFT')).toEqual(['40.00', '55.50', '71.25', '80.13', '42.50']);
    expect(row(text, 'TPOT')).toEqual(['6.50', '9.75', '10.50', '16.25', '6.83']);
    expect(row(text, 'ITL')).toEqual(['6.25', '9.38', '12.50', '20.75', '6.56']);
    expect(row(text, 'inter-chunk')).toEqual(['6.30', '9.45', '12.60', '15.75', '6.62']);
    expect(row(text, 'E2E')).toEqual(['840.50', '1260.75', '1890.25', '2101.25', '882.53']);
  });

  it('prints throughput, requests, tokens with their provenance, errors and client health', () => {
    const text = renderReport(report());
    expect(text).toMatch(/^throughput +1234\.6 output tok\/s · 9\.75 req\/s over 6\.43 s$/m);
    expect(text).toMatch(/^requests +62 ok · 2 failed$/m);
    expect(text).toMatch(/^tokens +7936 output · 8060 prompt as the server counted \(asked 128\/request\)$/m);
    expect(text).toMatch(/^counted by +server usage on every chunk: 62 requests$/m);
    expect(text).toMatch(/^errors +http_status 1 · timeout 1$/m);
    expect(text).toMatch(
      /^client +http1 transport · @teapot\/measure 0\.2\.0 · event-loop delay p99 1\.25 ms · max 3\.50 ms · CPU 42% of a core$/m,
    );
    expect(text).not.toMatch(/goodput|WARNING|SLO/);
    expect(text).toContain('ITL is token-weighted');
    expect(text).toContain('TPOT is request-weighted');
  });

  it('prints the simulated preset, goodput, SLO verdicts and a saturated client', () => {
    const summary = knownSummary({ goodputRps: 7.8, tokenSources: { usage_final: 60, chunk: 2 } });
    const slo = evaluateSlos(
      [parseSlo('itl_p99_ms=50'), parseSlo('ttft_p99_ms=10'), parseSlo('output_tokens_per_s=1000')],
      summary,
    );
    const text = renderReport(
      report({
        summary,
        slo,
        simulator: 'H100 SXM · Llama 8B · FP16',
        client: {
          eventLoopDelayMs: { p50: 20, p99: 80, max: 120, mean: 25 },
          saturated: true,
          saturatedReason: 'The measuring client was the bottleneck: its event loop ran late (P99 80.0 ms).',
        },
        streamOptions: { requested: true, rejectedByServer: true, retriedRequests: 3 },
      }),
    );
    expect(text).toContain('simulated: H100 SXM · Llama 8B · FP16');
    expect(text).toMatch(/^goodput +7\.80 req\/s meet every latency SLO \(80\.0% of requests\)$/m);
    expect(text).toMatch(
      /^ +WARNING client saturated\. The measuring client was the bottleneck: its event loop ran late/m,
    );
    expect(text).toContain('final server usage, spread over chunks: 60 requests · one token per chunk');
    expect(text).toContain('the server rejected stream_options: 3 requests were retried without');
    expect(row(text, 'itl_p99_ms')).toEqual(['<=', '50', '12.50', 'pass']);
    expect(row(text, 'ttft_p99_ms')).toEqual(['<=', '10', '71.25', 'FAIL']);
    expect(row(text, 'output_tokens_per_s')).toEqual(['>=', '1000', '1234.6', 'pass']);
  });

  it('shows dashes where a metric has no sample and marks an aborted run', () => {
    const summary = knownSummary({
      requests: { total: 4, succeeded: 0, failed: 4, incomplete: 0, warmup: 0 },
      ttftMs: null,
      tpotMs: null,
      itlMs: null,
      interChunkMs: null,
      e2eMs: null,
      errorsByClass: { connect_refused: 4 },
    });
    const text = renderReport(
      report({ summary, aborted: true, slo: evaluateSlos([parseSlo('itl_p99_ms=5')], summary) }),
    );
    expect(row(text, 'ITL')).toEqual(['-', '-', '-', '-', '-']);
    expect(text).toMatch(/^errors +connect_refused 4$/m);
    expect(text).toContain('ABORTED before the end');
    expect(row(text, 'itl_p99_ms')).toEqual(['<=', '5', 'no', 'data', 'FAIL']);
  });
});
