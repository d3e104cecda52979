import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DIAGNOSTIC_METRICS, METRICS, type DiagnosticMetric } from '@teapot/contracts';

/** The catalogue's description of the diagnostic read from this field, for the OpenAPI document. */
function describe(source: 'client', field: string, fallback: string): string {
  const metric = DIAGNOSTIC_METRICS.find((name) => {
    const { diagnostic } = METRICS[name] as DiagnosticMetric;
    return diagnostic.source === source && diagnostic.field === field;
  });
  const definition = metric ? (METRICS[metric] as DiagnosticMetric) : null;
  return definition ? `${definition.description} Trend metric \`${metric}\`.` : fallback;
}

function figure(source: 'client', field: string, example: number, fallback = ''): PropertyDecorator {
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
