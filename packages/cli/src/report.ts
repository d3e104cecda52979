import { METRIC_NAMES, METRICS, statisticOf, summaryValue, type Statistic } from '@teapot/contracts';
import type {
  ClientHealth,
  ErrorClass,
  Load,
  RunSummary,
  StreamOptionsReport,
  TokenCountSource,
  Transport,
} from '@teapot/measure';
import type { WorkloadChoice } from './args';
import type { SloVerdict } from './slo';

/** Everything the results table shows; built from a RunResult, or by hand in tests. */
export interface BenchReport {
  baseUrl: string;
  apiKind: string;
  model: string;
  /** One line naming the simulated GPU/model/quantization, when the built-in simulator served. */
  simulator: string | null;
  load: Load;
  workload: WorkloadChoice;
  forceOutputLength: boolean;
  summary: RunSummary;
  client: ClientHealth;
  transport: Transport;
  measureVersion: string;
  streamOptions: StreamOptionsReport;
  slo: SloVerdict[];
  aborted: boolean;
}

const LATENCY_ROWS = METRIC_NAMES.filter((name) => METRICS[name].kind === 'distribution');
const LATENCY_COLUMNS: Statistic[] = ['p50', 'p90', 'p99', 'p99.9', 'mean'];

const TOKEN_SOURCES: Record<TokenCountSource, string> = {
  usage_delta: 'server usage on every chunk',
  usage_final: 'final server usage, spread over chunks',
  tokenizer: 'no usage from the server: the streamed text counted with the tokenizer',
  chunk: 'one token per chunk (no usage from the server: an estimate)',
};

export const DEFINITIONS = [
  'TTFT: request start to the first chunk carrying an output token; E2E: to the last one.',
  'ITL is token-weighted: each output token after the first token chunk is one sample (a chunk of m tokens gives m samples of gap/m).',
  'TPOT is request-weighted: (last token - first token) / (output tokens - 1) per request. Inter-chunk: raw gaps between token chunks.',
];

export function renderReport(report: BenchReport): string {
  const { summary } = report;
  const lines: string[] = [];
  lines.push(`teapot bench · ${report.baseUrl} · ${report.apiKind} · ${report.model}`);
  if (report.simulator) lines.push(`simulated: ${report.simulator}`);
  lines.push(
    `load: ${describeLoad(report.load, report.workload)} · workload: ${describeWorkload(report.workload, report.forceOutputLength)}`,
  );
  if (report.aborted) lines.push('ABORTED before the end: the figures cover the requests that finished.');
  lines.push('');

  const latencyRows = LATENCY_ROWS.map((metric) => [
    METRICS[metric].label,
    ...LATENCY_COLUMNS.map((statistic) => {
      const value = summaryValue(summary, metric, statistic);
      return value === null ? '-' : ms(value);
    }),
  ]);
  const columnLabels = LATENCY_COLUMNS.map((statistic) => statisticOf(statistic).label);
  lines.push(...table([['latency (ms)', ...columnLabels], ...latencyRows]));
  lines.push('');

  const { requests } = summary;
  const facts: Array<[string, string]> = [
    [
      'throughput',
      `${fixed(summary.outputTokensPerS, 1)} output tok/s · ${fixed(summary.requestsPerS, 2)} req/s over ${fixed(summary.durationS, 2)} s`,
    ],
  ];
  if (summary.goodputRps !== null) {
    const share =
      summary.requestsPerS > 0
        ? ` (${fixed((100 * summary.goodputRps) / summary.requestsPerS, 1)}% of requests)`
        : '';
    facts.push(['goodput', `${fixed(summary.goodputRps, 2)} req/s meet every latency SLO${share}`]);
  }
  facts.push(['requests', describeRequests(requests)]);
  facts.push(...describeSent(summary), ...describeSchedule(summary));
  facts.push(['tokens', describeTokens(report)]);
  facts.push(['counted by', describeTokenCounts(report)]);
  const tokenizer = describeTokenizer(summary);
  if (tokenizer !== null) facts.push(['tokenizer', tokenizer]);
  facts.push(['errors', describeErrors(summary.errorsByClass)]);
  const backoff = summary.connectBackoff;
  if (backoff !== undefined && backoff.outages > 0)
    facts.push([
      'unreachable',
      `the endpoint refused or dropped connections ${backoff.outages} time(s), longest ${fixed(backoff.longestOutageMs / 1000, 1)} s: ` +
        `requests paused ${backoff.pauses} time(s), ${fixed(backoff.pausedMs / 1000, 1)} s in all${backoff.gaveUp ? '; the run gave up' : ''}`,
    ]);
  const loop = report.client.eventLoopDelayMs;
  const cpu =
    report.client.cpuPercent === undefined ? '' : ` · CPU ${fixed(report.client.cpuPercent, 0)}% of a core`;
  facts.push([
    'client',
    `${report.transport} transport · @teapot/measure ${report.measureVersion} · event-loop delay p99 ${ms(loop.p99)} ms · max ${ms(loop.max)} ms${cpu}`,
  ]);
  if (report.client.saturated)
    facts.push([
      '',
      `WARNING client saturated. ${report.client.saturatedReason ?? 'The measuring client was the bottleneck: the timings may show the client, not the endpoint.'}`,
    ]);
  lines.push(...table(facts, 'left'));

  if (report.slo.length > 0) {
    lines.push('');
    const sloRows = report.slo.map(({ gate, actual, pass }) => [
      gate.name,
      gate.kind === 'latency' ? `<= ${gate.maxMs}` : `>= ${gate.min}`,
      actual === null ? 'no data' : gate.kind === 'latency' ? ms(actual) : fixed(actual, 1),
      pass ? 'pass' : 'FAIL',
    ]);
    lines.push(...table([['SLO', 'target', 'actual', ''], ...sloRows]));
  }

  lines.push('', ...DEFINITIONS);
  return lines.join('\n') + '\n';
}

export function describeLoad(load: Load, workload?: WorkloadChoice): string {
  if (load.kind === 'closed') return `closed loop, ${load.concurrency} in flight`;
  const shape = load.arrival === 'gamma' ? `gamma (burstiness ${load.burstiness ?? 1})` : load.arrival;
  const cap =
    (load.maxConcurrency === undefined ? '' : `, at most ${load.maxConcurrency} in flight`) +
    (load.busyPoll === true ? ', busy-polling' : '');
  if (workload?.kind === 'trace')
    return `open loop on the trace's timestamps at ${workload.speed}x, ${fixed(load.ratePerS, 2)} req/s on average${cap}`;
  return `open loop, ${load.ratePerS} req/s ${shape}${cap}`;
}

function describeWorkload(workload: WorkloadChoice, forced: boolean): string {
  const output = forced ? 'out (forced)' : 'out (max)';
  const lengths = (input: number, out: number) => `${input} in / ${out} ${output} tokens`;
  switch (workload.kind) {
    case 'synthetic':
      return lengths(workload.inputTokens, workload.outputTokens);
    case 'multi-turn':
      return `sessions of ${workload.turns} turns, ${lengths(workload.inputTokens, workload.outputTokens)} a turn`;
    case 'shared-prefix':
      return (
        `${workload.prefixes} prefixes of ${workload.prefixTokens} tokens x ${workload.requestsPerPrefix} uses, ` +
        lengths(workload.suffixTokens, workload.outputTokens).replace(' in', ' suffix')
      );
    case 'trace':
      return `trace ${workload.path}: each line's time, prompt length and ${output} length`;
    default: {
      const perPrompt =
        workload.outputTokens === undefined ? '' : `, ${workload.outputTokens} ${output} tokens`;
      const what = workload.kind === 'dataset' ? 'prompts' : `${workload.format} conversations`;
      return `${what} from ${workload.path}${perPrompt}`;
    }
  }
}

/** What a session or prefix workload sent: sessions, TTFT by turn, the share a prefix cache could reuse. */
function describeSent(summary: RunSummary): Array<[string, string]> {
  const facts: Array<[string, string]> = [];
  const sent = summary.workload;
  if (sent?.trace !== undefined) {
    const { lines, spanS, speed, format } = sent.trace;
    facts.push(['trace', `${lines} lines over ${fixed(spanS, 1)} s (${format}), replayed at ${speed}x`]);
  }
  if (sent === undefined || ['synthetic', 'dataset', 'trace'].includes(sent.kind)) return facts;
  const parts: string[] = [];
  if (sent.sessions !== undefined) parts.push(`${sent.sessions} sessions`);
  if (sent.dataset !== undefined)
    parts.push(
      `${sent.dataset.sampled} of ${sent.dataset.read} conversations (${sent.dataset.kept} kept by the filters)`,
    );
  if (sent.expectedReuseShare !== null)
    parts.push(
      `${fixed(100 * sent.expectedReuseShare, 1)}% of prompt tokens repeat an earlier prompt's start`,
    );
  facts.push(['sent', parts.join(' · ')]);
  const turns = summary.turns;
  if (turns !== undefined && turns.firstTtftMs !== null) {
    const later = turns.laterTtftMs === null ? '' : ` · later turns ${ms(turns.laterTtftMs.p50)} ms`;
    const byTurn = turns.byTurn
      .filter((t) => t.ttftMs !== null)
      .slice(0, 8)
      .map((t) => `${t.turn}: ${ms(t.ttftMs!.p50)}`)
      .join(', ');
    facts.push(['TTFT p50', `first turns ${ms(turns.firstTtftMs.p50)} ms${later} · by turn ${byTurn}`]);
  }
  return facts;
}

/** An open loop's sends against their schedule, and the latency a user arriving on schedule saw. */
function describeSchedule(summary: RunSummary): Array<[string, string]> {
  const late = summary.sendLateness;
  if (late === undefined) return [];
  const facts: Array<[string, string]> = [
    [
      'sends',
      `${late.late} of ${late.sent} over ${late.thresholdMs} ms behind schedule · lateness p50 ${ms(late.p50Ms)} ms · ` +
        `p99 ${ms(late.p99Ms)} ms · max ${ms(late.maxMs)} ms`,
    ],
  ];
  const ttft = summary.ttftFromScheduleMs;
  const e2e = summary.e2eFromScheduleMs;
  if (ttft && e2e)
    facts.push([
      'from schedule',
      `TTFT p50 ${ms(ttft.p50)} · p99 ${ms(ttft.p99)} ms · E2E p50 ${ms(e2e.p50)} · p99 ${ms(e2e.p99)} ms (waits for a slot included)`,
    ]);
  return facts;
}

function describeRequests(requests: RunSummary['requests']): string {
  const parts = [`${requests.succeeded} ok`, `${requests.failed} failed`];
  if (requests.incomplete > 0) parts.push(`${requests.incomplete} still running at the end (left out)`);
  if (requests.warmup > 0) parts.push(`${requests.warmup} warm-up (left out)`);
  return parts.join(' · ');
}

function describeTokens(report: BenchReport): string {
  const { summary } = report;
  const asked = report.workload.kind === 'synthetic' ? ` (asked ${report.workload.inputTokens}/request)` : '';
  const sources = summary.promptTokenSources ?? {};
  const by = [
    sources.usage ? `server usage: ${sources.usage}` : '',
    sources.tokenizer ? `the tokenizer: ${sources.tokenizer}` : '',
  ].filter((part) => part !== '');
  const counted = by.length > 0 ? `counted by ${by.join(', ')} requests` : 'as the server counted';
  return `${summary.outputTokens} output · ${summary.promptTokens} prompt ${counted}${asked}`;
}

/** Which tokenizer counted, and what the server adds to a prompt (its chat template, BOS). */
function describeTokenizer(summary: RunSummary): string | null {
  const { tokenizer, promptOverheadTokens: overhead } = summary;
  if (!tokenizer) return null;
  const added =
    overhead === undefined
      ? ''
      : ` · the server adds ${overhead.min === overhead.max ? overhead.min : `${overhead.min}-${overhead.max}`} prompt tokens (template)`;
  return `${tokenizer.name} (sha256 ${tokenizer.sha256.slice(0, 12)}, ${tokenizer.sizeBytes} bytes)${added}`;
}

function describeTokenCounts(report: BenchReport): string {
  const sources = (Object.keys(TOKEN_SOURCES) as TokenCountSource[])
    .filter((source) => (report.summary.tokenSources[source] ?? 0) > 0)
    .map((source) => `${TOKEN_SOURCES[source]}: ${report.summary.tokenSources[source]} requests`);
  const { rejectedByServer, retriedRequests } = report.streamOptions;
  if (rejectedByServer)
    sources.push(
      `the server rejected stream_options: ${retriedRequests ?? 'its'} requests were retried without`,
    );
  return sources.length > 0 ? sources.join(' · ') : 'no successful request';
}

function describeErrors(errors: Partial<Record<ErrorClass, number>>): string {
  const entries = Object.entries(errors).filter(([, count]) => (count ?? 0) > 0);
  return entries.length === 0 ? 'none' : entries.map(([kind, count]) => `${kind} ${count}`).join(' · ');
}

function ms(value: number): string {
  return fixed(value, 2);
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** Pads each column to its widest cell: the first column to the left, the others as `align` says. */
export function table(rows: string[][], align: 'left' | 'right' = 'right'): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const pad = (cell: string, i: number) =>
    i === 0 || align === 'left' ? cell.padEnd(widths[i]) : cell.padStart(widths[i]);
  return rows.map((row) => row.map(pad).join('  ').trimEnd());
}
