import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DIAGNOSTIC_METRICS, METRICS, type DiagnosticMetric } from '@teapot/contracts';

/** The catalogue's description of the diagnostic read from this field, for the OpenAPI document. */
function describe(source: 'client' | 'server', field: string, fallback: string): string {
  const metric = DIAGNOSTIC_METRICS.find((name) => {
    const { diagnostic } = METRICS[name] as DiagnosticMetric;
    return diagnostic.source === source && diagnostic.field === field;
  });
  const definition = metric ? (METRICS[metric] as DiagnosticMetric) : null;
  return definition ? `${definition.description} Trend metric \`${metric}\`.` : fallback;
}

function figure(
  source: 'client' | 'server',
  field: string,
  example: number,
  fallback = '',
): PropertyDecorator {
  return ApiPropertyOptional({ type: Number, example, description: describe(source, field, fallback) });
}

/** ClientDiagnostics (@teapot/measure): each figure absent when it could not be derived, never zero. */
export class ClientDiagnosticsDto {
  @figure('client', 'tokensPerChunkMean', 1.8) tokensPerChunkMean?: number;
  @figure('client', 'tokensPerChunkP99', 4, 'P99 output tokens per token-carrying chunk.')
  tokensPerChunkP99?: number;
  @figure('client', 'multiTokenChunkShare', 0.42, 'Share of token chunks carrying more than one token.')
  multiTokenChunkShare?: number;
  @figure('client', 'acceptedLengthEstimate', 2.7) acceptedLengthEstimate?: number;
  @figure('client', 'lateTokenShare', 0.03) lateTokenShare?: number;
  @figure('client', 'deadlineTpotMs', 25, 'The target TPOT the late-token deadlines used (ms).')
  deadlineTpotMs?: number;
  @ApiPropertyOptional({
    enum: ['slo', 'median'],
    description: "Where the deadlines' target came from: the profile's TPOT SLO, or the run's median TPOT.",
  })
  deadlineTpotSource?: 'slo' | 'median';
  @figure('client', 'longGaps', 2) longGaps?: number;
  @figure('client', 'itlP99DuringPrefillMs', 48.2) itlP99DuringPrefillMs?: number;
  @figure('client', 'itlP99OutsidePrefillMs', 12.1) itlP99OutsidePrefillMs?: number;
  @figure(
    'client',
    'duringPrefillShare',
    0.2,
    "Share of ITL samples whose gap overlapped another request's prefill.",
  )
  duringPrefillShare?: number;
}

/** ServerDiagnostics (@teapot/contracts), from the server's metrics scraped while the run measured. */
export class ServerDiagnosticsDto {
  @ApiPropertyOptional({
    example: 'metrics unavailable: HTTP 500',
    description: 'What went wrong with the scrapes.',
  })
  error?: string;
  @ApiProperty({ example: 30, description: 'Scrapes that were parsed.' }) scrapes!: number;
  @ApiProperty({ example: 0, description: 'Scrapes that failed.' }) failedScrapes!: number;
  @figure('server', 'runningMean', 12.5, 'Mean requests running.') runningMean?: number;
  @figure('server', 'runningMax', 16, 'Most requests running.') runningMax?: number;
  @figure('server', 'waitingMean', 0.4, 'Mean requests waiting.') waitingMean?: number;
  @figure('server', 'waitingMax', 3) waitingMax?: number;
  @figure('server', 'kvCacheUsageMean', 0.55) kvCacheUsageMean?: number;
  @figure('server', 'kvCacheUsageMax', 0.62) kvCacheUsageMax?: number;
  @figure('server', 'preemptions', 0) preemptions?: number;
  @figure('server', 'prefixCacheHitRate', 0.35) prefixCacheHitRate?: number;
  @figure('server', 'specDecodeAcceptanceRate', 0.71) specDecodeAcceptanceRate?: number;
  @figure('server', 'specDecodeMeanAcceptedLength', 3.1) specDecodeMeanAcceptedLength?: number;
  @figure('server', 'serverTtftMeanMs', 80, "The server's own mean TTFT (ms).") serverTtftMeanMs?: number;
  @figure('server', 'serverTtftP50Ms', 70, "The server's own P50 TTFT (ms).") serverTtftP50Ms?: number;
  @figure('server', 'serverTtftP99Ms', 210) serverTtftP99Ms?: number;
  @figure('server', 'serverItlMeanMs', 11, "The server's own mean ITL (ms).") serverItlMeanMs?: number;
  @figure('server', 'serverItlP50Ms', 10, "The server's own P50 ITL (ms).") serverItlP50Ms?: number;
  @figure('server', 'serverItlP99Ms', 31) serverItlP99Ms?: number;
}

/** A diagnostic that changed significantly between two sides of runs (DiagnosticChange). */
export class DiagnosticChangeDto {
  @ApiProperty({ enum: DIAGNOSTIC_METRICS, example: 'preemptions' }) metric!: string;
  @ApiProperty({ example: 'preemptions' }) label!: string;
  @ApiProperty({ example: 'preemptions' }) unit!: string;
  @ApiProperty({ example: 0, description: "The baseline's mean of its runs' values." }) baseline!: number;
  @ApiProperty({ example: 37, description: "The candidate's mean of its runs' values." }) candidate!: number;
  @ApiProperty({
    type: 'object',
    properties: { baseline: { type: 'number' }, candidate: { type: 'number' } },
    example: { baseline: 5, candidate: 3 },
    description: 'Runs with the value on each side (the others are not counted).',
  })
  runs!: { baseline: number; candidate: number };
  @ApiProperty({
    enum: ['rank-test', 'separation'],
    description:
      '`rank-test`: two-sided Mann-Whitney U over per-run values at p <= 0.05; `separation`: sides too small for that test, every candidate run beyond every baseline run (indicative).',
  })
  basis!: 'rank-test' | 'separation';
  @ApiProperty({ example: 0.036 }) pValue!: number;
  @ApiProperty({ example: 'preemptions 0 -> 37 per run' }) text!: string;
}
