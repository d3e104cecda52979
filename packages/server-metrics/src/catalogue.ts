import type { Sample } from './exposition';

/**
 * The series a scrape is reduced to, and the server metric names each is read from, first match
 * wins (README.md, "Metric names", says where each name is documented). Names are the sample names
 * of the exposition: a counter's `_total`, a histogram's family name (its `_bucket`, `_sum` and
 * `_count` samples are read).
 */
export const GAUGES = {
  running: ['vllm:num_requests_running', 'tgi_batch_current_size'],
  waiting: ['vllm:num_requests_waiting', 'tgi_queue_size'],
  /** 0..1; vLLM renamed gpu_cache_usage_perc to kv_cache_usage_perc (V1 engine). */
  kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc', 'sglang:token_usage'],
} as const;

export const COUNTERS = {
  preemptions: ['vllm:num_preemptions_total'],
  prefixCacheQueries: ['vllm:prefix_cache_queries_total'],
  prefixCacheHits: ['vllm:prefix_cache_hits_total'],
  specDecodeDrafts: ['vllm:spec_decode_num_drafts_total'],
  specDecodeDraftTokens: ['vllm:spec_decode_num_draft_tokens_total'],
  specDecodeAcceptedTokens: ['vllm:spec_decode_num_accepted_tokens_total'],
} as const;

export const HISTOGRAMS = {
  ttft: ['vllm:time_to_first_token_seconds', 'sglang:time_to_first_token_seconds'],
  /** vLLM renamed time_per_output_token_seconds to inter_token_latency_seconds. */
  itl: ['vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'],
} as const;

export type GaugeName = keyof typeof GAUGES;
export type CounterName = keyof typeof COUNTERS;
export type HistogramName = keyof typeof HISTOGRAMS;

/** A histogram's cumulative bucket counts at one scrape, bounds ascending, +Inf last. */
export interface HistogramPoint {
  le: number[];
  counts: number[];
  sum: number;
  count: number;
}

/** One scrape reduced to the series above; a series the server does not export is absent. */
export interface ScrapePoint {
  gauges: Partial<Record<GaugeName, number>>;
  counters: Partial<Record<CounterName, number>>;
  histograms: Partial<Record<HistogramName, HistogramPoint>>;
}

const MODEL_LABEL = 'model_name';

/**
 * Reduces a scrape's samples to the catalogue's series. A series exported for several label sets
 * (engines, ranks, models) is summed; when some of its samples carry `model_name` equal to `model`
 * (the endpoint's model), only those are. NaN samples are skipped (a gauge not yet set).
 */
export function pointOf(samples: readonly Sample[], model?: string): ScrapePoint {
  const byName = new Map<string, Sample[]>();
  for (const sample of samples) {
    const list = byName.get(sample.name);
    if (list) list.push(sample);
    else byName.set(sample.name, [sample]);
  }
  const pick = (name: string): Sample[] | undefined => {
    const all = byName.get(name)?.filter((sample) => !Number.isNaN(sample.value));
    if (!all?.length || model === undefined) return all?.length ? all : undefined;
    const mine = all.filter((sample) => sample.labels[MODEL_LABEL] === model);
    return mine.length ? mine : all;
  };
  const point: ScrapePoint = { gauges: {}, counters: {}, histograms: {} };
  for (const [series, names] of Object.entries(GAUGES) as Array<[GaugeName, readonly string[]]>) {
    const value = firstSum(names, pick);
    if (value !== undefined) point.gauges[series] = value;
  }
  for (const [series, names] of Object.entries(COUNTERS) as Array<[CounterName, readonly string[]]>) {
    const value = firstSum(names, pick);
    if (value !== undefined) point.counters[series] = value;
  }
  for (const [series, names] of Object.entries(HISTOGRAMS) as Array<[HistogramName, readonly string[]]>) {
    for (const name of names) {
      const histogram = histogramOf(name, pick);
      if (histogram) {
        point.histograms[series] = histogram;
        break;
      }
    }
  }
  return point;
}

function firstSum(
  names: readonly string[],
  pick: (name: string) => Sample[] | undefined,
): number | undefined {
  for (const name of names) {
    const samples = pick(name);
    if (samples) return samples.reduce((total, sample) => total + sample.value, 0);
  }
  return undefined;
}

/** The histogram `name` summed over its label sets (bucket by bucket, by `le`); undefined when absent or broken. */
function histogramOf(name: string, pick: (name: string) => Sample[] | undefined): HistogramPoint | undefined {
  const buckets = pick(`${name}_bucket`);
  const sums = pick(`${name}_sum`);
  const counts = pick(`${name}_count`);
  if (!buckets || !sums || !counts) return undefined;
  const byBound = new Map<number, number>();
  for (const sample of buckets) {
    const bound = Number(sample.labels.le === '+Inf' ? Infinity : sample.labels.le);
    if (sample.labels.le === undefined || Number.isNaN(bound)) return undefined;
    byBound.set(bound, (byBound.get(bound) ?? 0) + sample.value);
  }
  const le = [...byBound.keys()].sort((a, b) => a - b);
  if (le[le.length - 1] !== Infinity) return undefined;
  return {
    le,
    counts: le.map((bound) => byBound.get(bound)!),
    sum: sums.reduce((total, sample) => total + sample.value, 0),
    count: counts.reduce((total, sample) => total + sample.value, 0),
  };
}
