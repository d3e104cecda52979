import type { EngineState } from './engine';
import { Histogram, expose, type Family, type Labels } from './exposition';

/**
 * The simulator's `GET /metrics`: vLLM's own Prometheus metrics (names, types, HELP texts, bucket
 * boundaries and the model_name and engine labels of vLLM's v1 PrometheusStatLogger), so that a
 * scraper written for vLLM reads the simulator unchanged. Gauges and the engine's counters are read
 * when scraped; the latency histograms are the server's own view, fed as each response writes its
 * chunks (writtenNs of the ground truth), so a scraper can set them against what a client measured.
 */

/** vLLM's buckets for TTFT (seconds). */
const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
  80.0, 160.0, 640.0, 2560.0,
];
/** vLLM's buckets for inter-token latency and per-request time per output token (seconds). */
const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
];
/** vLLM's buckets for request latencies (seconds). */
const REQUEST_LATENCY_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
  960.0, 1920.0, 7680.0,
];

/** vLLM's FinishReason values, as its request_success counter labels them (all present from start). */
export const FINISHED_REASONS = ['stop', 'length', 'abort'] as const;
export type FinishedReason = (typeof FINISHED_REASONS)[number];

export interface MetricsSource {
  modelName: string;
  engine(): EngineState;
  /** Speculative decoding's draft tokens per step now (0: off, and its counters are not exported, as vLLM). */
  speculativeTokens(): number;
}

export class ServerMetrics {
  readonly ttft = new Histogram(TTFT_BUCKETS);
  readonly itl = new Histogram(ITL_BUCKETS);
  readonly requestTpot = new Histogram(ITL_BUCKETS);
  readonly e2e = new Histogram(REQUEST_LATENCY_BUCKETS);
  private readonly finished: Record<FinishedReason, number> = { stop: 0, length: 0, abort: 0 };
  private readonly labels: Labels;

  constructor(private readonly source: MetricsSource) {
    this.labels = [
      ['model_name', source.modelName],
      ['engine', '0'],
    ];
  }

  /** A response's own recorder, from its arrival (vLLM's arrival_time). */
  response(arrivedNs: bigint): ResponseMetrics {
    return new ResponseMetrics(this, arrivedNs);
  }

  countFinished(reason: FinishedReason): void {
    this.finished[reason]++;
  }

  /** The exposition, rendered now: 0.0.4 text, or OpenMetrics when `accept` asks for it. */
  render(accept: string | undefined): { contentType: string; body: string } {
    const stats = this.source.engine();
    const c = stats.counters;
    const labels = this.labels;
    const one = (value: number) => [{ labels, value }];
    const families: Family[] = [
      gauge(
        'vllm:num_requests_running',
        'Number of requests in model execution batches.',
        one(stats.running),
      ),
      gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', one(stats.waiting)),
      gauge(
        'vllm:kv_cache_usage_perc',
        'KV-cache usage. 1 means 100 percent usage.',
        one(stats.kvCacheUsage),
      ),
      counter(
        'vllm:prefix_cache_queries',
        'Prefix cache queries, in terms of number of queried tokens.',
        one(c.prefixCacheQueries),
      ),
      counter(
        'vllm:prefix_cache_hits',
        'Prefix cache hits, in terms of number of cached tokens.',
        one(c.prefixCacheHits),
      ),
      counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', one(c.preemptions)),
      counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', one(c.promptTokens)),
      counter('vllm:generation_tokens', 'Number of generation tokens processed.', one(c.generationTokens)),
      counter(
        'vllm:request_success',
        'Count of successfully processed requests.',
        FINISHED_REASONS.map((reason) => ({
          labels: [...labels, ['finished_reason', reason] as const],
          value: this.finished[reason],
        })),
      ),
      ...this.speculativeDecoding(stats),
      histogram(
        'vllm:time_to_first_token_seconds',
        'Histogram of time to first token in seconds.',
        this.ttft,
      ),
      histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', this.itl),
      histogram(
        'vllm:request_time_per_output_token_seconds',
        'Histogram of time_per_output_token_seconds per request.',
        this.requestTpot,
      ),
      histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', this.e2e),
    ];
    return expose(families, accept);

    function histogram(name: string, help: string, h: Histogram): Family {
      return { kind: 'histogram', name, help, labels, histogram: h };
    }
  }

  private speculativeDecoding(stats: EngineState): Family[] {
    const k = this.source.speculativeTokens();
    if (k === 0) return [];
    const c = stats.counters;
    const one = (value: number) => [{ labels: this.labels, value }];
    return [
      counter('vllm:spec_decode_num_drafts', 'Number of spec decoding drafts.', one(c.specDecodeDrafts)),
      counter('vllm:spec_decode_num_draft_tokens', 'Number of draft tokens.', one(c.specDecodeDraftTokens)),
      counter(
        'vllm:spec_decode_num_accepted_tokens',
        'Number of accepted tokens.',
        one(c.specDecodeAcceptedTokens),
      ),
      counter(
        'vllm:spec_decode_num_accepted_tokens_per_pos',
        'Accepted tokens per draft position.',
        Array.from({ length: k }, (_, position) => ({
          labels: [...this.labels, ['position', String(position)] as const],
          value: c.specDecodeAcceptedPerPosition[position] ?? 0,
        })),
      ),
    ];
  }
}

/**
 * One response's contribution, as vLLM's engine records a request: TTFT at its first output, one
 * inter-token latency per later output (a chunk of several accepted tokens is one output, one gap),
 * and at the end the e2e latency and the request's mean time per output token.
 */
export class ResponseMetrics {
  private firstNs: bigint | null = null;
  private lastNs: bigint | null = null;
  private tokens = 0;
  private ended = false;

  constructor(
    private readonly metrics: ServerMetrics,
    private readonly arrivedNs: bigint,
  ) {}

  /** A chunk of `tokens` output tokens was written at writtenNs. */
  output(tokens: number, writtenNs: bigint): void {
    if (tokens <= 0 || this.ended) return;
    if (this.lastNs === null) {
      this.firstNs = writtenNs;
      this.metrics.ttft.observe(seconds(writtenNs - this.arrivedNs));
    } else {
      this.metrics.itl.observe(seconds(writtenNs - this.lastNs));
    }
    this.lastNs = writtenNs;
    this.tokens += tokens;
  }

  /** The response ended: complete with its finish reason, or aborted (client gone, fault, shutdown). */
  end(reason: FinishedReason): void {
    if (this.ended) return;
    this.ended = true;
    this.metrics.countFinished(reason);
    if (reason === 'abort' || this.lastNs === null || this.firstNs === null) return;
    this.metrics.e2e.observe(seconds(this.lastNs - this.arrivedNs));
    if (this.tokens > 1)
      this.metrics.requestTpot.observe(seconds(this.lastNs - this.firstNs) / (this.tokens - 1));
  }
}

function gauge(name: string, help: string, samples: Array<{ labels: Labels; value: number }>): Family {
  return { kind: 'gauge', name, help, samples };
}

function counter(name: string, help: string, samples: Array<{ labels: Labels; value: number }>): Family {
  return { kind: 'counter', name, help, samples };
}

function seconds(ns: bigint): number {
  return Number(ns) / 1e9;
}
