import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import type { ServerDiagnostics } from '@teapot/contracts';

const ms = (what: string) => ({
  type: Number,
  description: `${what} (ms), from the histogram's increase over the run.`,
});

/** ServerDiagnostics (@teapot/contracts) as the API documents it: a figure that could not be derived is absent. */
export class ServerDiagnosticsDto implements ServerDiagnostics {
  @ApiPropertyOptional({
    example: 'metrics unavailable: HTTP 500',
    description: '"metrics unavailable: ..." when no scrape succeeded, or what went wrong with some of them.',
  })
  error?: string;
  @ApiProperty({ example: 31, description: 'Scrapes that were parsed.' }) scrapes!: number;
  @ApiProperty({ example: 0, description: 'Scrapes that failed (named in `error`).' }) failedScrapes!: number;
  @ApiPropertyOptional({
    example: 14.2,
    description: 'Requests running, mean over the scrapes in the measured window.',
  })
  runningMean?: number;
  @ApiPropertyOptional({ example: 16 }) runningMax?: number;
  @ApiPropertyOptional({
    example: 0.4,
    description: 'Requests waiting, mean over the scrapes in the measured window.',
  })
  waitingMean?: number;
  @ApiPropertyOptional({ example: 3 }) waitingMax?: number;
  @ApiPropertyOptional({ example: 0.62, description: 'Share of the KV cache in use, 0..1.' })
  kvCacheUsageMean?: number;
  @ApiPropertyOptional({ example: 0.99 }) kvCacheUsageMax?: number;
  @ApiPropertyOptional({
    example: 37,
    description: "Preemptions during the run (counter increase, resets as Prometheus' increase()).",
  })
  preemptions?: number;
  @ApiPropertyOptional({
    example: 0.41,
    description: 'Prefix-cache hits over queries during the run, in tokens.',
  })
  prefixCacheHitRate?: number;
  @ApiPropertyOptional({
    example: 0.71,
    description: 'Spec decoding: accepted over drafted tokens during the run.',
  })
  specDecodeAcceptanceRate?: number;
  @ApiPropertyOptional({
    example: 3.1,
    description: 'Spec decoding: tokens per verification step, 1 + accepted / drafts.',
  })
  specDecodeMeanAcceptedLength?: number;
  @ApiPropertyOptional(ms("The server's own mean TTFT")) serverTtftMeanMs?: number;
  @ApiPropertyOptional(ms("The server's own P50 TTFT, histogram_quantile")) serverTtftP50Ms?: number;
  @ApiPropertyOptional(ms("The server's own P99 TTFT, histogram_quantile")) serverTtftP99Ms?: number;
  @ApiPropertyOptional(ms("The server's own mean inter-token latency")) serverItlMeanMs?: number;
  @ApiPropertyOptional(ms("The server's own P50 inter-token latency, histogram_quantile"))
  serverItlP50Ms?: number;
  @ApiPropertyOptional(ms("The server's own P99 inter-token latency, histogram_quantile"))
  serverItlP99Ms?: number;
}

const series = (example: Array<number | null>, description: string): ApiPropertyOptions => ({
  type: 'array',
  items: { type: 'number', nullable: true },
  example,
  description,
});

class ServerGaugesDto {
  @ApiPropertyOptional(series([0, 12, 16, 0], 'Requests running at each scrape.')) running?: Array<
    number | null
  >;
  @ApiPropertyOptional(series([0, 2, 3, 0], 'Requests waiting at each scrape.')) waiting?: Array<
    number | null
  >;
  @ApiPropertyOptional(series([0.1, 0.6, 0.9, 0.1], 'KV-cache usage (0..1) at each scrape.'))
  kvCacheUsage?: Array<number | null>;
}

class ServerCountersDto {
  @ApiPropertyOptional(
    series([4, 4, 9, 11], 'The preemption counter as scraped (cumulative; a drop is a server restart).'),
  )
  preemptions?: Array<number | null>;
  @ApiPropertyOptional(series([100, 300], 'Prefix-cache queries (tokens), cumulative.'))
  prefixCacheQueries?: Array<number | null>;
  @ApiPropertyOptional(series([10, 60], 'Prefix-cache hits (tokens), cumulative.')) prefixCacheHits?: Array<
    number | null
  >;
  @ApiPropertyOptional(series([5, 25], 'Spec-decode drafts, cumulative.')) specDecodeDrafts?: Array<
    number | null
  >;
  @ApiPropertyOptional(series([20, 100], 'Spec-decode draft tokens, cumulative.'))
  specDecodeDraftTokens?: Array<number | null>;
  @ApiPropertyOptional(series([15, 70], 'Spec-decode accepted tokens, cumulative.'))
  specDecodeAcceptedTokens?: Array<number | null>;
}

export class RunServerMetricsDto {
  @ApiProperty({ format: 'uuid' }) runId!: string;
  @ApiProperty({
    type: [Number],
    example: [-2.1, 998.7, 1999.2, 2431.5],
    description:
      "Each successful scrape's start, ms on the run's monotonic clock (from monotonicAnchorNs, as the requests' " +
      'startUs are): the first comes just before the run, the last just after it. Empty when none succeeded.',
  })
  offsetsMs!: number[];
  @ApiProperty({
    type: ServerGaugesDto,
    description: 'Gauges per scrape, beside offsetsMs; null where a scrape lacked one.',
  })
  gauges!: ServerGaugesDto;
  @ApiProperty({ type: ServerCountersDto, description: 'Counters per scrape, beside offsetsMs.' })
  counters!: ServerCountersDto;
  @ApiProperty({
    type: ServerCountersDto,
    description:
      "Each counter's increase from the first scrape to each one, a drop read as a server restart as the " +
      "diagnostics count it (Prometheus' increase()): what a chart of preemptions so far draws.",
  })
  increases!: ServerCountersDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { itl: { le: [0.005, 0.01, null], counts: [50, 90, 100], sum: 0.8, count: 100 } },
    description:
      "The TTFT (`ttft`) and inter-token latency (`itl`) histograms' increase over the run, cumulative by bucket " +
      '(upper bounds `le` in seconds, the last, +Inf, written null).',
  })
  histograms!: Record<string, unknown>;
  @ApiProperty({ type: ServerDiagnosticsDto, nullable: true }) diagnostics!: ServerDiagnosticsDto | null;
}
